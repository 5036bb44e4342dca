package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with a file of mode 0600 holding data, so a
// reader sees the old content or the new, never a mix, and after a crash the
// disk holds one of the two. The data is written to a temp file in the same
// directory (same file system, so the rename is atomic), fsynced, renamed
// over path, and the directory is fsynced so the rename itself is durable.
// On failure the temp file is removed and path is untouched.
func Write(path string, data []byte) error {
	tmp, f, err := CreateTemp(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := WriteSyncClose(f, data); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: renamed into place, but %w", path, err)
	}
	return nil
}

// CreateTemp creates a new, empty temp file for path (see TempInfix), mode
// exactly 0600 whatever the umask.
func CreateTemp(path string) (string, *os.File, error) {
	for range 10 {
		name := TransientName(path, TempInfix)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // a name collision: practically never, but not fatal
		}
		if err != nil {
			return "", nil, err
		}
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close()
			_ = os.Remove(name)
			return "", nil, err
		}
		return name, f, nil
	}
	return "", nil, fmt.Errorf("create temp file for %s: too many name collisions", path)
}

// WriteSyncClose writes data to f, fsyncs and closes it.
func WriteSyncClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = SyncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
