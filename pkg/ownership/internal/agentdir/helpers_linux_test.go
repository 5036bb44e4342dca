package agentdir

import "testing"

// privateAgentDir is an agent dir as a reconciler leaves it.
func privateAgentDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := EnsurePrivateTree(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
