package systemtest

import (
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
)

// A lock that would make every new daemon's Acquire fail is reported with
// its own reason before anything is spawned: no daemon runs into it and
// exits, exit after exit, into a crash-loop back-off. The lock is left as
// it was.
func TestLockTroubleIsReportedBeforeSpawning(t *testing.T) {
	t.Parallel()
	canary := startCanary(t)
	inc, err := platform.Incarnation(canary.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	lock := func(pid int, inc string) []byte {
		return (&ownership.OwnerLock{PID: pid, Incarnation: inc, CreatedAt: time.Now().UnixMilli()}).Marshal()
	}
	for _, tc := range []struct {
		name   string
		reason string
		plant  func(t *testing.T, p ownership.Paths)
	}{
		{"garbage owner.lock", ownership.ReasonMalformedOwnerLock, func(t *testing.T, p ownership.Paths) {
			writeFile(t, p.Lock, []byte("not a lock\n"))
		}},
		{"symlinked owner.lock", ownership.ReasonMalformedOwnerLock, func(t *testing.T, p ownership.Paths) {
			target := filepath.Join(p.Dir, "elsewhere")
			writeFile(t, target, lock(dead.Process.Pid, "linux:1"))
			if err := os.Symlink(target, p.Lock); err != nil {
				t.Fatal(err)
			}
		}},
		{"a live reclaim", ownership.ReasonReclaimBusy, func(t *testing.T, p ownership.Paths) {
			writeFile(t, p.Lock, lock(dead.Process.Pid, "linux:1"))
			writeFile(t, p.Reclaim, lock(canary.Process.Pid, inc))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t)
			p := e.paths("slack")
			if err := fsstore.EnsureDir(p); err != nil {
				t.Fatal(err)
			}
			tc.plant(t, p)
			before := snapshotTree(t, p.Dir)
			e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
			r := e.once()
			if r.code != 1 || !strings.Contains(r.stdout, tc.reason) {
				t.Fatalf("--once: exit %d, want 1 naming %s\n%s%s", r.code, tc.reason, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout, "exited with code") {
				t.Errorf("a daemon was spawned into the lock:\n%s", r.stdout)
			}
			if _, err := os.Lstat(filepath.Join(p.Dir, "daemon.log")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("daemon.log exists: a daemon was spawned (%v)", err)
			}
			if after := snapshotTree(t, p.Dir); !maps.Equal(before, after) {
				t.Errorf("the daemon dir changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
	if !canaryAlive(t, canary) {
		t.Fatal("the reclaim lock's live holder was killed")
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshotTree is every entry of dir: symlinks by target, files by content.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		path := filepath.Join(dir, en.Name())
		if target, err := os.Readlink(path); err == nil {
			out[en.Name()] = "-> " + target
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = string(data)
	}
	return out
}
