package fsstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The daemons dir removed and re-created under a watched name (an
// operator's rm -rf sdk/daemons, then a daemon's mkdir): no create event
// reaches a dir made before its parent is watched again, so it is the
// store's next look that watches it again, and the record written after
// that look is heard.
func TestObserveWatchesARecreatedDirAgain(t *testing.T) {
	agentDir := privateAgentDir(t)
	st := New(agentDir, Options{})
	t.Cleanup(func() { _ = st.Close() })
	p := st.paths("bot")
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	changes, cancel, err := st.Watch("bot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	daemons := filepath.Dir(p.Dir)
	if err := os.RemoveAll(daemons); err != nil {
		t.Fatal(err)
	}
	waitChange(t, changes, "the daemon dir removed")
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	st.Observe("bot")
	drain(changes)
	if err := os.WriteFile(p.State, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, changes, "state.json in the re-created dir")
}

func waitChange(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no change seen for %s", what)
	}
}

func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// An operator's fix of a refused lock (owner.lock or its reclaim file
// removed, as docs/troubleshooting.md says) wakes the watcher: the loop
// looks again at once, not at its next resync.
func TestWatchHearsTheLockFilesGo(t *testing.T) {
	agentDir := privateAgentDir(t)
	st := New(agentDir, Options{})
	t.Cleanup(func() { _ = st.Close() })
	p := st.paths("bot")
	if err := EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p.Lock, p.Reclaim} {
		if err := os.WriteFile(f, []byte("garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	changes, cancel, err := st.Watch("bot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	for _, f := range []string{p.Lock, p.Reclaim} {
		drain(changes)
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
		waitChange(t, changes, filepath.Base(f)+" removed")
	}
}
