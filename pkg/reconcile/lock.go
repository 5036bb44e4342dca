package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLockTimeout: another reconciler held the pass lock for the whole wait.
var ErrLockTimeout = errors.New("another reconciler holds the lock")

// passLock is the flock that serializes passes across processes: the loop,
// --once, stop and restart all take it.
type passLock struct{ f *os.File }

// acquirePassLock waits up to ctx's deadline. flock has no timed form, so it
// retries a non-blocking attempt with a growing pause; the wait is rare and
// bounded, unlike a loop's idle.
func acquirePassLock(ctx context.Context, path string) (*passLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	pause := 5 * time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &passLock{f: f}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("%w (%s)", ErrLockTimeout, path)
		case <-t.C:
		}
		pause = min(pause*2, 200*time.Millisecond)
	}
}

// release unlocks by closing: the kernel drops the flock with the last descriptor.
func (l *passLock) release() { _ = l.f.Close() }

// AcquireLock takes the pass lock for a one-shot command (--once, stop,
// restart), waiting at most timeout. Call release when done.
func AcquireLock(ctx context.Context, agentDir string, timeout time.Duration) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l, err := acquirePassLock(ctx, LockPath(agentDir))
	if err != nil {
		return nil, err
	}
	return l.release, nil
}
