package fsstore

import (
	"bytes"
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	rt "gjc.dev/reconciler/pkg/ownership/internal/recordtest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// Every malformed record, with a live canary as its PID and owner.lock
// holder: classified malformed, and no operation writes, creates, removes
// or signals anything.
func TestMalformedRecordsTouchNothing(t *testing.T) {
	c := startCanary(t)
	decided := stateOf(c.PID(), c.incarnation)
	cases := rt.MalformedRecords(c.PID(), c.incarnation)
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			p := newPaths(t)
			writeFile(t, p.State, tc.Data)
			writeLock(t, p.Lock, c.PID(), c.incarnation)
			assertRefusedUntouched(t, p, c, decided)
		})
	}
	// What makes a file, not its content, untrustworthy.
	special := []struct {
		name  string
		setup func(t *testing.T, p ownership.Paths)
	}{
		{"symlink to a valid record", func(t *testing.T, p ownership.Paths) {
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			writeFile(t, target, decided.Marshal())
			if err := os.Symlink(target, p.State); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling symlink", func(t *testing.T, p ownership.Paths) {
			if err := os.Symlink("/nonexistent/state.json", p.State); err != nil {
				t.Fatal(err)
			}
		}},
		{"oversize valid JSON", func(t *testing.T, p ownership.Paths) {
			data := append(bytes.Repeat([]byte(" "), ownership.MaxRecordSize), decided.Marshal()...)
			writeFile(t, p.State, data)
		}},
		{"a directory", func(t *testing.T, p ownership.Paths) {
			if err := os.Mkdir(p.State, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"a FIFO", func(t *testing.T, p ownership.Paths) {
			if err := syscall.Mkfifo(p.State, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"unreadable", func(t *testing.T, p ownership.Paths) {
			if os.Geteuid() == 0 {
				t.Skip("root reads everything")
			}
			writeFile(t, p.State, decided.Marshal())
			if err := os.Chmod(p.State, 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"group-writable daemon directory", func(t *testing.T, p ownership.Paths) {
			writeFile(t, p.State, decided.Marshal())
			if err := os.Chmod(p.Dir, 0o770); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlinked daemon directory", func(t *testing.T, p ownership.Paths) {
			real := filepath.Join(t.TempDir(), "bot")
			if err := os.Rename(p.Dir, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, p.Dir); err != nil {
				t.Fatal(err)
			}
			writeFile(t, p.State, decided.Marshal())
		}},
	}
	for _, tc := range special {
		t.Run(tc.name, func(t *testing.T) {
			p := newPaths(t)
			writeLock(t, p.Lock, c.PID(), c.incarnation)
			tc.setup(t, p)
			assertRefusedUntouched(t, p, c, decided)
		})
	}
}

// A level above the daemon directory that is a symbolic link: a reader
// judges only the daemon directory (the path every observation takes), but
// nothing acts through it.
func TestSymlinkedLevelRefusesActions(t *testing.T) {
	c := startCanary(t)
	decided := stateOf(c.PID(), c.incarnation)
	p := newPaths(t)
	real := t.TempDir()
	daemons := filepath.Dir(p.Dir)
	if err := os.Rename(daemons, filepath.Join(real, "daemons")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "daemons"), daemons); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p.State, decided.Marshal())
	writeLock(t, p.Lock, c.PID(), c.incarnation)
	before, beforeReal := snap(t, filepath.Dir(daemons)), snap(t, real)
	if _, err := Acquire(p, request); !errors.Is(err, platform.ErrNotPrivate) {
		t.Fatalf("Acquire = %v", err)
	}
	if err := Reclaim(p); !errors.Is(err, platform.ErrNotPrivate) {
		t.Fatalf("Reclaim = %v", err)
	}
	if err := SignalOwner(p, &desired, decided, syscall.SIGTERM, SystemProbe()); !errors.Is(err, platform.ErrNotPrivate) {
		t.Fatalf("SignalOwner = %v", err)
	}
	if err := WriteControl(p, ownership.NewControlRequest(ownership.ActionStop, decided, time.Now())); !errors.Is(err, platform.ErrNotPrivate) {
		t.Fatalf("WriteControl = %v", err)
	}
	assertSame(t, before, filepath.Dir(daemons), "operations through a symlinked level")
	assertSame(t, beforeReal, real, "operations through a symlinked level")
	c.assertUntouched(t)
}

// assertRefusedUntouched runs every operation against a malformed record
// and checks that each refused, that the agent dir is byte-identical and
// that the canary got no signal.
func assertRefusedUntouched(t *testing.T, p ownership.Paths, c *canary, decided ownership.State) {
	t.Helper()
	agentDir := filepath.Dir(filepath.Dir(filepath.Dir(p.Dir)))
	before := snap(t, agentDir)

	rec := ReadState(p)
	if rec.Malformed == nil || rec.State != nil {
		t.Fatalf("ReadState = %+v, want malformed", rec)
	}
	cl := classifyNow(rec, desired, SystemProbe())
	if cl.Class != ownership.ClassMalformed || !cl.AmbiguouslyLive || cl.Signalable {
		t.Fatalf("Classify = %+v", cl)
	}
	if _, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7}); err == nil {
		t.Fatal("Acquire took over a malformed record")
	}
	if err := Reclaim(p); err == nil {
		t.Fatal("Reclaim went ahead over a malformed record")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		if err := SignalOwner(p, &desired, decided, sig, SystemProbe()); err == nil {
			t.Fatalf("SignalOwner(%v) signalled", sig)
		}
	}
	if err := SignalOwner(p, nil, decided, syscall.SIGTERM, SystemProbe()); err == nil {
		t.Fatal("SignalOwner without desired signalled")
	}
	assertSame(t, before, agentDir, "refused operations")
	c.assertUntouched(t)
}

// The exact legacy "unavailable" record: recoverable once its PID is dead
// (Acquire replaces its lock), refused while it lives.
func TestLegacyUnavailableRecord(t *testing.T) {
	legacy := func(pid int) []byte {
		return rt.Record(pid, "x").Without("generation").With("incarnation", `"unavailable"`).Bytes()
	}
	t.Run("dead pid is recovered", func(t *testing.T) {
		p := newPaths(t)
		dead := deadPID(t)
		writeFile(t, p.State, legacy(dead))
		oldLock := writeLock(t, p.Lock, dead, ownership.LegacyIncarnation)
		rec := ReadState(p)
		if !rec.Legacy || rec.State == nil || rec.State.PID != dead {
			t.Fatalf("ReadState = %+v", rec)
		}
		if c := classifyNow(rec, desired, SystemProbe()); c.Class != ownership.ClassStopped || c.Reason != ownership.ReasonLegacyOwnerExited || c.AmbiguouslyLive {
			t.Fatalf("Classify = %+v", c)
		}
		o, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
		lock, _ := os.ReadFile(p.Lock)
		if bytes.Equal(lock, oldLock) {
			t.Fatal("legacy lock not replaced")
		}
		if l, err := ownership.ParseOwnerLock(lock); err != nil || l.PID != os.Getpid() {
			t.Fatalf("lock is %s", lock)
		}
		if rec := ReadState(p); rec.Legacy || rec.State.OwnerID != "successor" || rec.State.Generation != gen(7) {
			t.Fatalf("record after acquire: %+v", rec.State)
		}
		assertNoLeftovers(t, p)
		_ = o.Release(nil)
	})
	t.Run("live pid is refused", func(t *testing.T) {
		c := startCanary(t)
		p := newPaths(t)
		writeFile(t, p.State, legacy(c.PID()))
		writeLock(t, p.Lock, c.PID(), ownership.LegacyIncarnation)
		agentDir := filepath.Dir(filepath.Dir(filepath.Dir(p.Dir)))
		before := snap(t, agentDir)
		rec := ReadState(p)
		if cl := classifyNow(rec, desired, SystemProbe()); cl.Class != ownership.ClassMalformed || !cl.AmbiguouslyLive {
			t.Fatalf("Classify = %+v", cl)
		}
		_, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7})
		if !errors.Is(err, ownership.ErrMalformed) {
			t.Fatalf("Acquire: %v", err)
		}
		if err := Reclaim(p); !errors.Is(err, ownership.ErrMalformed) {
			t.Fatalf("Reclaim: %v", err)
		}
		decided := *rec.State
		if err := SignalOwner(p, &desired, decided, syscall.SIGTERM, SystemProbe()); !errors.Is(err, ownership.ErrMalformed) {
			t.Fatalf("SignalOwner: %v", err)
		}
		assertSame(t, before, agentDir, "operations on a live legacy record")
		c.assertUntouched(t)
	})
}

// assertNoLeftovers fails if a temp, quarantine or reclaim file remains.
func assertNoLeftovers(t *testing.T, p ownership.Paths) {
	t.Helper()
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case ownership.StateFile, ownership.LockFile, ownership.ControlFile:
		default:
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
