package agentdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// PassLock serializes passes across processes: the loop, --once, stop and
// restart all take it. It is two locks: the flock on the lock file, which
// every version of this reconciler takes, and the kernel-held pass lock
// (PassLockKeys), which no file operation can remove: a file
// removed under its holder leaves the next reconciler a new inode to flock,
// but not the kernel's name.
type PassLock struct {
	f      *os.File
	kernel platform.NameLocks
}

// TakePassLock takes agentDir's pass lock, waiting up to ctx's deadline.
// flock has no timed form, so it retries a non-blocking attempt with a
// growing pause; the wait is rare and bounded, unlike a loop's idle.
//
// The flock is on an inode, and what other reconcilers find is a path: one
// that waited on a file since removed or replaced would hold a lock no later
// acquirer sees. So a lock counts only while the path still names the
// locked file; if not, the file is let go and the path opened afresh.
func TakePassLock(ctx context.Context, agentDir string) (*PassLock, error) {
	path := LockPath(agentDir)
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	pause := 5 * time.Millisecond
	for {
		if f == nil {
			var err error
			if f, err = openLock(agentDir); err != nil {
				return nil, err
			}
		}
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			named, err := namesFile(path, f)
			if err != nil {
				return nil, err
			}
			if named {
				kernel, err := takeKernelPassLock(agentDir)
				if err == nil {
					l := &PassLock{f: f, kernel: kernel}
					f = nil
					return l, nil
				}
				if !errors.Is(err, errPassLockHeld) {
					return nil, err
				}
				// Another pass runs on a file removed from under it. Let
				// ours go while waiting, so no one waits on us meanwhile.
			}
			f.Close()
			f = nil
		case errors.Is(err, unix.EWOULDBLOCK), errors.Is(err, unix.EINTR):
		default:
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w (%s)", ownership.ErrPassesLocked, path)
		case <-t.C:
		}
		pause = min(pause*2, 200*time.Millisecond)
	}
}

// openLock opens the lock file, creating it and first the private dirs it
// lives in: after an operator's rm -rf of sdk/, a pass that could not make
// them again would never run.
func openLock(agentDir string) (*os.File, error) {
	if err := EnsurePrivateTree(agentDir); err != nil {
		return nil, fmt.Errorf("pass lock: %w", err)
	}
	path := LockPath(agentDir)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	return f, nil
}

// namesFile reports whether path still names the file f has open (same
// device and inode); a path that is gone names nothing.
func namesFile(path string, f *os.File) (bool, error) {
	var held, named unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &held); err != nil {
		return false, fmt.Errorf("stat of the locked %s: %w", path, err)
	}
	err := unix.Lstat(path, &named)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat of %s: %w", path, err)
	}
	return held.Dev == named.Dev && held.Ino == named.Ino, nil
}

// errPassLockHeld: the kernel-held pass lock is another process's.
var errPassLockHeld = errors.New("pass lock held by another reconciler")

func takeKernelPassLock(agentDir string) (platform.NameLocks, error) {
	keys, err := PassLockKeys(agentDir)
	if err != nil {
		return nil, err
	}
	held, err := platform.TakeNameLocks(keys...)
	var h *platform.NameHeldError
	if errors.As(err, &h) {
		return nil, fmt.Errorf("%w (pid %d)", errPassLockHeld, h.Holder.PID)
	}
	return held, err
}

// Release unlocks: the kernel lock first, then the flock, dropped by the
// kernel with the last descriptor.
func (l *PassLock) Release() {
	l.kernel.Release()
	_ = l.f.Close()
}

// LockPath is the pass lock's file in agentDir.
func LockPath(agentDir string) string {
	return filepath.Join(agentDir, "sdk", "reconciler", "lock")
}

// EnsurePrivateTree creates the reconciler's own dirs 0700, refusing ones
// that are symlinks, foreign or group/world writable.
func EnsurePrivateTree(agentDir string) error {
	sdk := filepath.Join(agentDir, "sdk")
	for _, dir := range []string{agentDir, sdk, filepath.Join(sdk, "reconciler"), filepath.Join(sdk, "daemons")} {
		if err := atomicfile.CheckPrivateDir(dir); err != nil {
			return err
		}
	}
	return nil
}
