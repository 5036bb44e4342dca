package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

var request = ownership.AcquireRequest{Kind: "discord", OwnerID: testOwnerID, Identity: testIdentity, Generation: 7}

func TestAcquirePublishes(t *testing.T) {
	agentDir := filepath.Join(t.TempDir(), "agent")
	p := ownership.PathsFor(agentDir, "bot")
	before := time.Now().UnixMilli()
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	st := o.State()
	if st.PID != os.Getpid() || st.Incarnation != incarnationOf(t, os.Getpid()) || st.OwnerID != testOwnerID ||
		st.Kind != "discord" || st.Identity != testIdentity || st.Generation != gen(7) || st.TransportHealthy ||
		st.StartedAt < before || st.HeartbeatAt != st.StartedAt || st.StoppedAt != nil {
		t.Fatalf("published %+v", st)
	}
	data, _ := os.ReadFile(p.State)
	if !bytes.Equal(data, st.Marshal()) {
		t.Fatalf("state.json %s, owner says %s", data, st.Marshal())
	}
	lock, err := ownership.ParseOwnerLock(mustRead(t, p.Lock))
	if err != nil || lock.PID != st.PID || lock.Incarnation != st.Incarnation {
		t.Fatalf("lock %+v, %v", lock, err)
	}
	for _, dir := range []string{filepath.Join(agentDir, "sdk"), filepath.Dir(p.Dir), p.Dir} {
		if fi, err := os.Lstat(dir); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
			t.Fatalf("%s: %v %v", dir, fi.Mode(), err)
		}
	}
	for _, f := range []string{p.State, p.Lock} {
		if fi, err := os.Lstat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, fi.Mode(), err)
		}
	}
	// The record is ours, live and compatible: a second owner is refused.
	c := classifyNow(ReadState(p), desired, selfAsDaemon(p))
	if c.Class != ownership.ClassCompatible || c.Health != ownership.HealthStarting || !c.Signalable {
		t.Fatalf("Classify = %+v", c)
	}
	_, err = Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "second", Identity: testIdentity, Generation: 7})
	var held *ownership.HeldError
	if !errors.As(err, &held) || held.PID != os.Getpid() || held.OwnerID != testOwnerID || ownership.Reason(err) != ownership.ReasonOwnerHeld {
		t.Fatalf("second Acquire = %v", err)
	}
	if err := o.Release(nil); err != nil {
		t.Fatal(err)
	}
	// Released, but this process has not exited: a successor still waits.
	_, err = acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "third", Identity: testIdentity, Generation: 7}, selfAsDaemon(p), defaultEnv())
	if !errors.As(err, &held) || !held.Released || ownership.Reason(err) != ownership.ReasonOwnerExiting {
		t.Fatalf("Acquire after release, owner alive = %v", err)
	}
	assertNoLeftovers(t, p)
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestAcquireRefusesInvalidRequests(t *testing.T) {
	for _, r := range []ownership.AcquireRequest{
		{Kind: "irc", OwnerID: "o", Identity: "i"},
		{Kind: "discord", OwnerID: "", Identity: "i"},
		{Kind: "discord", OwnerID: "o", Identity: ""},
		{Kind: "discord", OwnerID: "o\xff", Identity: "i"},
		{Kind: "discord", OwnerID: "o", Identity: "i", Generation: -1},
		{Kind: "discord", OwnerID: "o", Identity: "i", Generation: (1<<53 - 1) + 1},
	} {
		agentDir := t.TempDir()
		if _, err := Acquire(ownership.PathsFor(agentDir, "bot"), r); !errors.Is(err, ownership.ErrInvalidRequest) {
			t.Errorf("Acquire(%+v) = %v", r, err)
		}
		assertEmpty(t, agentDir)
	}
	for _, name := range []string{"", ".", "..", "a/b", "../escape"} {
		agentDir := t.TempDir()
		if _, err := Acquire(ownership.PathsFor(agentDir, name), request); !errors.Is(err, ownership.ErrBadPaths) {
			t.Errorf("Acquire(name %q) = %v", name, err)
		}
		assertEmpty(t, agentDir)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("%s is not empty: %v", dir, entries)
	}
}

// Without a provable incarnation a process has no authority: nothing at
// all is created, not even the directory.
func TestAcquireWithoutIncarnationCreatesNothing(t *testing.T) {
	for _, inc := range []func(int) (string, error){
		func(int) (string, error) { return "", fmt.Errorf("incarnation: %w", platform.ErrProcessGone) },
		func(int) (string, error) { return ownership.LegacyIncarnation, nil },
		func(int) (string, error) { return "linux:", nil },
	} {
		agentDir := t.TempDir()
		e := defaultEnv()
		e.incarnation = inc
		_, err := acquire(ownership.PathsFor(agentDir, "bot"), request, SystemProbe(), e)
		if !errors.Is(err, ownership.ErrNoIncarnation) || ownership.Reason(err) != ownership.ReasonNoIncarnation {
			t.Fatalf("acquire = %v", err)
		}
		assertEmpty(t, agentDir)
	}
}

// A recorded owner and lock whose process is dead are recovered: the lock
// is reclaimed exactly and replaced, and no reclaim lock is left.
func TestAcquireRecoversDeadOwner(t *testing.T) {
	for _, released := range []bool{false, true} {
		p := newPaths(t)
		dead := deadPID(t)
		s := stateOf(dead, "linux:12345")
		if released {
			s.StoppedAt = ms(time.Now().UnixMilli())
		}
		writeState(t, p, s)
		old := writeLock(t, p.Lock, dead, "linux:12345")
		if c := classifyNow(ReadState(p), desired, SystemProbe()); c.Class != ownership.ClassStopped || c.AmbiguouslyLive {
			t.Fatalf("Classify = %+v", c)
		}
		o, err := Acquire(p, request)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
		if bytes.Equal(mustRead(t, p.Lock), old) {
			t.Fatal("dead lock not replaced")
		}
		if st := ReadState(p).State; st.PID != os.Getpid() || st.StoppedAt != nil {
			t.Fatalf("record %+v", st)
		}
		assertNoLeftovers(t, p)
		if err := o.Release(nil); err != nil {
			t.Fatal(err)
		}
	}
}

// A lock whose creator is dead, with no record at all (a daemon that
// crashed between its link and its first publish).
func TestAcquireRecoversUnpublishedDeadLock(t *testing.T) {
	p := newPaths(t)
	writeLock(t, p.Lock, deadPID(t), "linux:7")
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	defer o.Release(nil)
	assertNoLeftovers(t, p)
}

// A live lock holder, with no record or a dead record, keeps the lock; the
// error names it.
func TestAcquireRespectsLiveLock(t *testing.T) {
	c := startCanary(t)
	for _, withRecord := range []bool{false, true} {
		p := newPaths(t)
		if withRecord {
			// The record's process is gone, the lock's is not: the lock
			// alone keeps a successor out.
			writeState(t, p, stateOf(deadPID(t), "linux:5"))
		}
		writeLock(t, p.Lock, c.PID(), c.incarnation)
		before := snap(t, p.Dir)
		_, err := Acquire(p, request)
		var held *ownership.HeldError
		if !errors.As(err, &held) || held.PID != c.PID() || held.Source != ownership.LockFile {
			t.Fatalf("Acquire = %v", err)
		}
		assertSame(t, before, p.Dir, "Acquire against a live lock")
	}
	c.assertUntouched(t)
}

// The live lock holder is named with its owner id when the record is its.
func TestAcquireNamesLockHolder(t *testing.T) {
	agentDir := t.TempDir()
	h := startAcquirer(t, agentDir, "bot", "winner-1")
	h.Send(t, "acquire")
	if got := h.Recv(t); got != "won" {
		t.Fatalf("helper: %s", got)
	}
	p := ownership.PathsFor(agentDir, "bot")
	_, err := Acquire(p, request)
	var held *ownership.HeldError
	if !errors.As(err, &held) || held.PID != h.PID() || held.OwnerID != "winner-1" {
		t.Fatalf("Acquire = %v", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("owned by pid %d (owner winner-1)", h.PID())) {
		t.Fatalf("message %q", err)
	}
}

// A publisher paused between link and publish cannot overwrite a contender
// that published meanwhile (here after an old-style reclaimer deleted the
// paused publisher's lock with a plain unlink).
func TestAcquirePausedPublisherCannotOverwrite(t *testing.T) {
	agentDir := t.TempDir()
	h := startAcquirer(t, agentDir, "bot", "contender")
	p := ownership.PathsFor(agentDir, "bot")
	var contender []byte
	e := defaultEnv()
	e.filesOnly = true
	e.afterLink = func() {
		if err := os.Remove(p.Lock); err != nil {
			t.Error(err)
		}
		h.Send(t, "acquire files")
		if got := h.Recv(t); got != "won" {
			t.Errorf("contender: %s", got)
		}
		contender = mustRead(t, p.State)
	}
	_, err := acquire(p, request, SystemProbe(), e)
	var held *ownership.HeldError
	if !errors.As(err, &held) || held.PID != h.PID() || held.OwnerID != "contender" {
		t.Fatalf("paused publisher: %v", err)
	}
	if got := mustRead(t, p.State); !bytes.Equal(got, contender) {
		t.Fatalf("contender's record overwritten:\n%s\n%s", contender, got)
	}
	if l, err := ownership.ParseOwnerLock(mustRead(t, p.Lock)); err != nil || l.PID != h.PID() {
		t.Fatalf("contender's lock: %+v %v", l, err)
	}
	assertNoLeftovers(t, p)
}

// The lease check alone: the paused publisher's lock was replaced by a
// live process's, and nothing was published. Nothing is written.
func TestAcquirePausedPublisherLostLock(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	var theirs []byte
	e := defaultEnv()
	e.afterLink = func() {
		if err := os.Remove(p.Lock); err != nil {
			t.Error(err)
		}
		theirs = writeLock(t, p.Lock, c.PID(), c.incarnation)
	}
	_, err := acquire(p, request, SystemProbe(), e)
	var held *ownership.HeldError
	if !errors.As(err, &held) || held.PID != c.PID() {
		t.Fatalf("acquire = %v", err)
	}
	if _, err := os.Stat(p.State); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("state.json published without the lock: %v", err)
	}
	if !bytes.Equal(mustRead(t, p.Lock), theirs) {
		t.Fatal("their lock was touched")
	}
	c.assertUntouched(t)
}

// A reclaimer that crashed holding owner.lock.reclaim, whose PID now names
// another live process, is recovered, and its reclaim lock removed.
func TestAcquireRecoversCrashedReclaimerWithReusedPID(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	dead := deadPID(t)
	writeState(t, p, stateOf(dead, "linux:5"))
	writeLock(t, p.Lock, dead, "linux:5")
	writeLock(t, p.Reclaim, c.PID(), otherIncarnation) // reused PID
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	defer o.Release(nil)
	if _, err := os.Lstat(p.Reclaim); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reclaim lock left: %v", err)
	}
	assertNoLeftovers(t, p)
	c.assertUntouched(t)
}

// A live reclaimer's lock is never stolen, and nothing else is touched.
func TestAcquireDoesNotStealLiveReclaimLock(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	dead := deadPID(t)
	writeState(t, p, stateOf(dead, "linux:5"))
	writeLock(t, p.Lock, dead, "linux:5")
	writeLock(t, p.Reclaim, c.PID(), c.incarnation)
	before := snap(t, p.Dir)
	e := defaultEnv()
	e.reclaimWait = 20 * time.Millisecond // it waits for the live reclaimer in vain
	_, err := acquire(p, request, SystemProbe(), e)
	var busy *ownership.ReclaimBusyError
	if !errors.As(err, &busy) || busy.PID != c.PID() || ownership.Reason(err) != ownership.ReasonReclaimBusy {
		t.Fatalf("Acquire = %v", err)
	}
	assertSame(t, before, p.Dir, "Acquire against a live reclaimer")
	if err := Reclaim(p); !errors.Is(err, ownership.ErrReclaimBusy) {
		t.Fatalf("Reclaim = %v", err)
	}
	assertSame(t, before, p.Dir, "Reclaim against a live reclaimer")
	c.assertUntouched(t)
}

// A delayed reclaimer (it judged a stale lock, then stalled) cannot delete
// the successor that replaced it: not an owner lock, not a reclaim lock.
func TestDelayedReclaimerCannotDeleteSuccessor(t *testing.T) {
	c := startCanary(t)
	t.Run("owner lock", func(t *testing.T) {
		p := newPaths(t)
		dead := deadPID(t)
		writeLock(t, p.Lock, dead, "linux:5")
		var successor []byte
		e := defaultEnv()
		e.beforeUnlink = func(path string) {
			if path != p.Lock {
				return
			}
			// Meanwhile the stale lock went and a live successor linked
			// its own.
			if err := os.Remove(p.Lock); err != nil {
				t.Error(err)
			}
			lease, err := platform.CreateExclusive(p.Lock, (&ownership.OwnerLock{PID: c.PID(), Incarnation: c.incarnation, CreatedAt: 1}).Marshal())
			if err != nil {
				t.Error(err)
			}
			successor = lease.Content
		}
		me, err := selfOf(e)
		if err != nil {
			t.Fatal(err)
		}
		err = reclaim(p, SystemProbe(), me, e)
		if !errors.Is(err, platform.ErrLeaseMismatch) {
			t.Fatalf("reclaim = %v", err)
		}
		if !bytes.Equal(mustRead(t, p.Lock), successor) {
			t.Fatal("successor's lock deleted or changed")
		}
		assertNoLeftovers(t, p) // our reclaim lock removed, nothing quarantined
	})
	t.Run("reclaim lock", func(t *testing.T) {
		p := newPaths(t)
		dead := deadPID(t)
		writeLock(t, p.Lock, dead, "linux:5")
		writeLock(t, p.Reclaim, deadPID(t), "linux:6") // a crashed reclaimer's
		var successor []byte
		e := defaultEnv()
		e.beforeUnlink = func(path string) {
			if path != p.Reclaim {
				return
			}
			if err := os.Remove(p.Reclaim); err != nil {
				t.Error(err)
			}
			successor = writeLock(t, p.Reclaim, c.PID(), c.incarnation)
		}
		me, err := selfOf(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := reclaim(p, SystemProbe(), me, e); !errors.Is(err, ownership.ErrReclaimBusy) {
			t.Fatalf("reclaim = %v", err)
		}
		if !bytes.Equal(mustRead(t, p.Reclaim), successor) {
			t.Fatal("successor's reclaim lock deleted or changed")
		}
	})
	t.Run("own reclaim lock replaced while reclaiming", func(t *testing.T) {
		p := newPaths(t)
		writeLock(t, p.Lock, deadPID(t), "linux:5")
		var successor []byte
		e := defaultEnv()
		e.reclaimLocked = func() {
			// Another reclaimer judged ours stale and took over.
			if err := os.Remove(p.Reclaim); err != nil {
				t.Error(err)
			}
			successor = writeLock(t, p.Reclaim, c.PID(), c.incarnation)
		}
		me, err := selfOf(e)
		if err != nil {
			t.Fatal(err)
		}
		// It no longer holds the reclaim lock, so it must not act on what
		// it judged: the successor reclaims, not both.
		lockBefore := mustRead(t, p.Lock)
		if err := reclaim(p, SystemProbe(), me, e); !errors.Is(err, ownership.ErrReclaimBusy) {
			t.Fatalf("reclaim = %v, want ErrReclaimBusy", err)
		}
		if !bytes.Equal(mustRead(t, p.Reclaim), successor) {
			t.Fatal("successor's reclaim lock removed by the one it replaced")
		}
		if !bytes.Equal(mustRead(t, p.Lock), lockBefore) {
			t.Fatal("owner.lock removed by a reclaimer that had lost its reclaim lock")
		}
	})
	c.assertUntouched(t)
}

// Reclaim re-checks under the reclaim lock: an owner that appeared after
// the first judgement keeps its lock.
func TestReclaimRechecksUnderReclaimLock(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	writeLock(t, p.Lock, deadPID(t), "linux:5")
	var live []byte
	e := defaultEnv()
	e.reclaimLocked = func() {
		if err := os.Remove(p.Lock); err != nil {
			t.Error(err)
		}
		live = writeLock(t, p.Lock, c.PID(), c.incarnation)
	}
	me, err := selfOf(e)
	if err != nil {
		t.Fatal(err)
	}
	var held *ownership.HeldError
	if err := reclaim(p, SystemProbe(), me, e); !errors.As(err, &held) || held.PID != c.PID() {
		t.Fatalf("reclaim = %v", err)
	}
	if !bytes.Equal(mustRead(t, p.Lock), live) {
		t.Fatal("live lock touched")
	}
	assertNoLeftovers(t, p)
	c.assertUntouched(t)
}

func TestReclaimMalformedLock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, p ownership.Paths)
	}{
		{"garbage", func(t *testing.T, p ownership.Paths) { writeFile(t, p.Lock, []byte("garbage\n")) }},
		{"missing pid", func(t *testing.T, p ownership.Paths) {
			writeFile(t, p.Lock, []byte(`{"incarnation":"linux:1","createdAt":1}`))
		}},
		{"symlink", func(t *testing.T, p ownership.Paths) {
			target := filepath.Join(t.TempDir(), "lock")
			writeLock(t, target, deadPID(t), "linux:5")
			if err := os.Symlink(target, p.Lock); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, p ownership.Paths) {
			if err := os.Mkdir(p.Lock, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"oversize", func(t *testing.T, p ownership.Paths) {
			writeFile(t, p.Lock, bytes.Repeat([]byte(" "), ownership.MaxRecordSize+1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPaths(t)
			tc.setup(t, p)
			before := snap(t, filepath.Dir(p.Dir))
			_, err := Acquire(p, request)
			if !errors.Is(err, ownership.ErrMalformed) || ownership.Reason(err) != ownership.ReasonMalformedOwnerLock {
				t.Fatalf("Acquire = %v (%s)", err, ownership.Reason(err))
			}
			if err := Reclaim(p); !errors.Is(err, ownership.ErrMalformed) {
				t.Fatalf("Reclaim = %v", err)
			}
			assertSame(t, before, filepath.Dir(p.Dir), "Acquire against a malformed lock")
		})
	}
	// A lock that keeps a second link looks like one being created: it is
	// waited for, boundedly, and never taken.
	t.Run("hard link", func(t *testing.T) {
		p := newPaths(t)
		writeLock(t, p.Lock, deadPID(t), "linux:5")
		if err := os.Link(p.Lock, p.Lock+".other"); err != nil {
			t.Fatal(err)
		}
		before := snap(t, p.Dir)
		e := defaultEnv()
		e.reclaimWait = 20 * time.Millisecond
		if _, err := acquire(p, request, SystemProbe(), e); !errors.Is(err, errLockInFlux) {
			t.Fatalf("acquire = %v", err)
		}
		assertSame(t, before, p.Dir, "Acquire against a hard-linked lock")
	})
}

func TestReclaimNothingToDo(t *testing.T) {
	if err := Reclaim(ownership.PathsFor(t.TempDir(), "bot")); err != nil {
		t.Fatalf("Reclaim without a directory: %v", err)
	}
	if err := Reclaim(newPaths(t)); err != nil {
		t.Fatalf("Reclaim without a lock: %v", err)
	}
}
