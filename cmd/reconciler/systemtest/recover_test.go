package systemtest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// An operator removes the whole sdk/ dir under a running loop. The daemons
// lose their records and exit; the loop must make its dirs again (0700) and
// bring both bots back, each under a new owner.
func TestLoopRecoversRemovedSDK(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.startLoop()
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	names := []string{"discord", "slack"}
	old := map[string]*ownership.State{}
	exits := map[string]<-chan time.Time{}
	for _, n := range names {
		old[n] = e.state(n)
		exits[n] = watchExit(t, old[n])
	}

	// Moved out whole in one rename: an rm -rf racing the loop's status
	// writes fails with ENOTEMPTY half-way.
	sdk := filepath.Join(e.agentDir, "sdk")
	if err := os.Rename(sdk, filepath.Join(t.TempDir(), "sdk")); err != nil {
		t.Fatal(err)
	}
	lastAlive := map[string]time.Time{}
	for _, n := range names {
		at, ok := <-exits[n]
		if !ok {
			t.Fatalf("%s daemon (pid %d) did not exit after its record was removed", n, old[n].PID)
		}
		lastAlive[n] = at
	}

	// Waited on without creating anything: a helper that made the dirs
	// would hide a loop that does not.
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitTreeEvents(t, ctx, e.agentDir, func() bool {
		st, err := reconcile.ReadStatus(e.agentDir)
		if err != nil {
			return false
		}
		for _, n := range names {
			rec := ownershipRecord(e, n)
			d, _ := daemonStatus(st, n)
			if !healthy(rec) || rec.State.OwnerID == old[n].OwnerID || !d.Converged || d.OwnerID != rec.State.OwnerID {
				return false
			}
		}
		return true
	}, "both bots healthy again under new owners")

	for _, n := range names {
		if started := time.UnixMilli(e.state(n).StartedAt); !started.Add(time.Millisecond).After(lastAlive[n]) {
			t.Errorf("%s: new owner started at %v, while the old one was still alive at %v", n, started, lastAlive[n])
		}
	}
	for _, dir := range []string{sdk, filepath.Dir(reconcile.StatusPath(e.agentDir)), filepath.Join(sdk, "daemons")} {
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s re-created with mode %v, want a 0700 dir", dir, fi.Mode())
		}
	}
}

// waitTreeEvents evaluates check now and after every event anywhere under
// root (dirs that appear are watched as they do) until it holds, failing
// the test at ctx's deadline. It creates nothing.
func waitTreeEvents(t testing.TB, ctx context.Context, root string, check func() bool, what string) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	watchAll := func() {
		// A dir that vanishes mid-walk is seen again by its parent's event.
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = w.Add(p)
			}
			return nil
		})
	}
	for watchAll(); !check(); watchAll() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("%s: not reached before the deadline", what)
		}
	}
}
