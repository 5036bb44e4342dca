package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: the decoder never panics, and a document it accepts can be
// defaulted, validated and resolved without panicking either.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(discordDoc("a", "")))
	f.Add([]byte(slackDoc("b") + "---\n" + discordDoc("c", "  readyTimeout: 1s\n")))
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "golden", "specs", name)); err == nil {
			f.Add(data)
		}
	}
	env := func(string) (string, bool) { return "token", true }
	// fromFile references resolve under a directory that does not exist, so a
	// fuzzed path never reads a real file; each run stays fast and pure.
	const noDir = "/nonexistent/reconciler-fuzz"
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := Decode(data)
		for _, d := range docs {
			if d.Object == nil {
				continue
			}
			Default(d.Object)
			errs := Validate(d.Object)
			res, rerrs := resolveConfig(d.Object, noDir, env)
			if len(d.Errs) == 0 && len(errs) == 0 && len(rerrs) == 0 && res.config.Identity() == "" {
				t.Fatalf("a valid object has no identity: %+v", d.Object)
			}
		}
	})
}
