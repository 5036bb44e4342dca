package atomicfile_test

import (
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/atomicfile"
)

func BenchmarkWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "state.json")
	data := []byte(`{"version":1,"kind":"discord","pid":4242,"ownerId":"4100-7f0c2b8e-3c1d-4a52-9b6e-0d6f1e2a3b4c",` +
		`"identity":"7040273bec62d43f","incarnation":"linux:98231","startedAt":1764450000000,` +
		`"heartbeatAt":1764450005000,"transportHealthy":true,"generation":7}` + "\n")
	for b.Loop() {
		if err := atomicfile.Write(path, data); err != nil {
			b.Fatal(err)
		}
	}
}
