package reconcile

import (
	"testing"
)

// privateAgentDir is an agent dir as New leaves it.
func privateAgentDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := ensurePrivateTree(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
