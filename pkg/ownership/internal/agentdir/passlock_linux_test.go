package agentdir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/ownership"
)

const lockWait = 20 * time.Second

type acquired struct {
	l   *PassLock
	err error
}

// acquireAsync takes the lock in a goroutine: one more reconciler racing.
func acquireAsync(t *testing.T, agentDir string, timeout time.Duration) <-chan acquired {
	t.Helper()
	ch := make(chan acquired, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		l, err := TakePassLock(ctx, agentDir)
		ch <- acquired{l, err}
	}()
	return ch
}

func mustAcquire(t *testing.T, agentDir string) *PassLock {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	l, err := TakePassLock(ctx, agentDir)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mustNotAcquire: while another reconciler holds the lock, a short try fails.
func mustNotAcquire(t *testing.T, agentDir, why string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	l, err := TakePassLock(ctx, agentDir)
	if err == nil {
		l.Release()
		t.Fatalf("got the pass lock while %s: two passes at once", why)
	}
	if !errors.Is(err, ownership.ErrPassesLocked) {
		t.Fatal(err)
	}
}

// opened returns a channel closed the next time the file path names now is
// opened: how a test knows a racing acquirer has a descriptor of it.
func opened(t *testing.T, path string) <-chan struct{} {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "inotify")
	t.Cleanup(func() { f.Close() })
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() {
		if n, err := f.Read(make([]byte, 4096)); n > 0 && err == nil {
			close(ch)
		}
	}()
	return ch
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(lockWait):
		t.Fatalf("%s: not seen before the deadline", what)
	}
}

func waitAcquired(t *testing.T, ch <-chan acquired, what string) *PassLock {
	t.Helper()
	select {
	case a := <-ch:
		if a.err != nil {
			t.Fatalf("%s: %v", what, a.err)
		}
		return a.l
	case <-time.After(lockWait):
		t.Fatalf("%s: not acquired before the deadline", what)
		return nil
	}
}

// assertNamed: the lock held is the file the path names.
func assertNamed(t *testing.T, agentDir string, l *PassLock) {
	t.Helper()
	named, err := namesFile(LockPath(agentDir), l.f)
	if err != nil {
		t.Fatal(err)
	}
	if !named {
		t.Error("the lock held is on a file the lock path no longer names")
	}
}

// A reconciler waits on the lock file; an operator removes it; the holder
// finishes. The waiter's flock on the removed file excludes no one, so it
// must take the lock at the path again, and a newcomer must not get it
// while the waiter holds it. Once the waiter is done, it is free again.
func TestPassLockRemovedWhileWaited(t *testing.T) {
	agentDir := privateAgentDir(t)
	first := mustAcquire(t, agentDir)
	waiting := opened(t, LockPath(agentDir))
	second := acquireAsync(t, agentDir, lockWait)
	waitClosed(t, waiting, "the second reconciler opening the lock")

	if err := os.Remove(LockPath(agentDir)); err != nil {
		t.Fatal(err)
	}
	first.Release()
	l := waitAcquired(t, second, "the second reconciler, once the first is done")
	assertNamed(t, agentDir, l)
	mustNotAcquire(t, agentDir, "the second reconciler holds it")
	l.Release()
	mustAcquire(t, agentDir).Release()
}

// The lock file is replaced while its holder runs and a second reconciler
// waits on the old one. Nothing at the path says the first still holds the
// old file, but the kernel-held pass lock does: a newcomer does not get
// the lock, and the waiter gets it, at the path, only once the first is
// done.
func TestPassLockReplacedWhileWaited(t *testing.T) {
	agentDir := privateAgentDir(t)
	path := LockPath(agentDir)
	first := mustAcquire(t, agentDir)
	waiting := opened(t, path)
	second := acquireAsync(t, agentDir, lockWait)
	waitClosed(t, waiting, "the second reconciler opening the lock")

	tmp := filepath.Join(filepath.Dir(path), "lock.new")
	if err := os.WriteFile(tmp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	mustNotAcquire(t, agentDir, "the first holds the replaced file")
	select {
	case a := <-second:
		if a.err == nil {
			a.l.Release()
		}
		t.Fatalf("the second reconciler returned (%v) while the first holds the lock", a.err)
	default:
	}
	first.Release()
	l := waitAcquired(t, second, "the second reconciler, once the first is done")
	assertNamed(t, agentDir, l)
	mustNotAcquire(t, agentDir, "the second reconciler holds it")
	l.Release()
	mustAcquire(t, agentDir).Release()
}

// An operator removes sdk/ (lock file and all) while a pass runs: the next
// reconciler makes a new lock file and flocks it, but the kernel-held pass
// lock keeps it out until the first is done.
func TestPassLockRemovedWhileHeld(t *testing.T) {
	agentDir := privateAgentDir(t)
	first := mustAcquire(t, agentDir)
	if err := os.RemoveAll(filepath.Join(agentDir, "sdk")); err != nil {
		t.Fatal(err)
	}
	mustNotAcquire(t, agentDir, "the first holds the removed file")
	first.Release()
	l := mustAcquire(t, agentDir)
	assertNamed(t, agentDir, l)
	l.Release()
}

// A removed control dir is made again, private, by the next acquirer.
func TestPassLockRecreatesItsDir(t *testing.T) {
	agentDir := t.TempDir()
	mustAcquire(t, agentDir).Release()
	if err := os.RemoveAll(filepath.Join(agentDir, "sdk")); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, agentDir)
	defer l.Release()
	assertNamed(t, agentDir, l)
	for _, dir := range []string{filepath.Join(agentDir, "sdk"), filepath.Join(agentDir, "sdk", "reconciler"), filepath.Join(agentDir, "sdk", "daemons")} {
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want a 0700 dir", dir, fi.Mode())
		}
	}
}

// An unsafe control dir is refused, not used.
func TestPassLockRefusesUnsafeDir(t *testing.T) {
	agentDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(agentDir, "sdk", "reconciler"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(agentDir, "sdk", "reconciler"), 0o777); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockWait)
	defer cancel()
	if l, err := TakePassLock(ctx, agentDir); err == nil {
		l.Release()
		t.Fatal("took the lock in a world-writable dir")
	}
	if _, err := os.Lstat(LockPath(agentDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file was created in an unsafe dir: %v", err)
	}
}
