package reconcile

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// privateAgentDir is an agent dir as New leaves it.
func privateAgentDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := ensurePrivateTree(fsstore.Files{}, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
