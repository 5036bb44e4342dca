package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// StageFile writes data to tmp, a name the caller derives from the final
// one (so a crash leaves a file it can find again), mode 0600, fsynced.
// A regular file already at tmp is a leftover of an earlier stage and is
// replaced; anything else there (a symbolic link, a FIFO, a directory) is
// refused and left as it is. Publish it with PublishStaged.
func StageFile(tmp string, data []byte) error {
	if st, err := os.Lstat(tmp); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("stage %s: %w: a %s is there", tmp, ErrExist, st.Mode().Type())
		}
		if err := os.Remove(tmp); err != nil {
			return fmt.Errorf("stage %s: removing a leftover: %w", tmp, err)
		}
	}
	fd, err := unix.Open(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "stage", Path: tmp, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("stage %s: %w", tmp, err)
	}
	if err := atomicfile.WriteSyncClose(f, data); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("stage %s: %w", tmp, err)
	}
	return nil
}

// PublishStaged renames a staged file to path without replacing anything
// and makes the rename durable (directory fsync). If path exists the
// error matches ErrExist and tmp is left as it is.
func PublishStaged(tmp, path string) error {
	if err := renameNoReplace(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("publish %s: %w", path, ErrExist)
		}
		return fmt.Errorf("publish %s: %w", path, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("publish %s: renamed, but %w", path, err)
	}
	return nil
}
