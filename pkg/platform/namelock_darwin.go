package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// macOS has no abstract unix sockets. The nearest guard is an flock, which
// the kernel also drops at exit, on a file outside the agent dir: in the
// user's cache dir (~/Library/Caches/reconciler/names), so an `rm -rf` of
// the state dir or a restored backup cannot touch it. Unlike Linux's, it is
// a file: deleting that directory by hand defeats it.
type nameLockSys struct {
	f    *os.File
	once sync.Once
}

func nameLockPath(key string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("name lock %q: %w", key, err)
	}
	dir := filepath.Join(base, "reconciler", "names")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("name lock %q: %w", key, err)
	}
	return filepath.Join(dir, strings.ReplaceAll(key, "/", "_")+".lock"), nil
}

func openNameLock(key string) (*os.File, error) {
	path, err := nameLockPath(key)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("name lock %q: %w", key, err)
	}
	return f, nil
}

func takeNameLock(key string) (*nameLockSys, error) {
	f, err := openNameLock(key)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			h, _, _ := nameLockHolder(key)
			return nil, &NameHeldError{Key: key, Holder: h}
		}
		return nil, fmt.Errorf("name lock %q: %w", key, err)
	}
	// The holder's PID, for lookups; the lock itself is the flock.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &nameLockSys{f: f}, nil
}

func (s *nameLockSys) release() error {
	var err error
	s.once.Do(func() { err = s.f.Close() })
	return err
}

func nameLockHolder(key string) (NameHolder, bool, error) {
	f, err := openNameLock(key)
	if err != nil {
		return unknownHolder, false, err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil {
		return unknownHolder, false, nil
	} else if !errors.Is(err, unix.EWOULDBLOCK) {
		return unknownHolder, false, fmt.Errorf("name lock %q: %w", key, err)
	}
	// In the user's own cache dir, the holder is this user.
	buf := make([]byte, 16)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return unknownHolder, true, nil
	}
	return NameHolder{PID: pid, UID: os.Getuid()}, true, nil
}
