package fsstore

import (
	"context"
	"os"
	"testing"

	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
)

// The holder of the pass lock is named for a waiting operator: this
// process while it holds the lock, no one once it let go.
func TestPassLockHolderNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	if _, held, err := PassLockHolder(dir); held || err != nil {
		t.Fatalf("PassLockHolder of a free lock: held %v, %v", held, err)
	}
	l, err := agentdir.TakePassLock(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	h, held, err := PassLockHolder(dir)
	if !held || err != nil || h.PID != os.Getpid() {
		t.Errorf("PassLockHolder while held: %+v held %v, %v; want pid %d", h, held, err, os.Getpid())
	}
	l.Release()
	if _, held, err := PassLockHolder(dir); held || err != nil {
		t.Errorf("PassLockHolder after release: held %v, %v", held, err)
	}
}
