package fsstore

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
)

// privateAgentDir is an agent dir as a reconciler leaves it.
func privateAgentDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := agentdir.EnsurePrivateTree(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
