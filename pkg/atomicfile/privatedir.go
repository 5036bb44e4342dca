package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CheckPrivateDir makes sure path is a directory only we control: not a
// symbolic link, owned by the effective uid, not writable by group or
// others. A missing directory is created, with any missing parents, each
// with mode 0700. A directory that fails the check is refused with an error
// matching ErrNotPrivate and left as it is: what others may write into, or
// what a link redirects, cannot hold records we trust.
func CheckPrivateDir(path string) error {
	st, err := Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := mkdirPrivate(path); err != nil {
			return fmt.Errorf("private dir: %w", err)
		}
		st, err = Lstat(path)
	}
	if err != nil {
		return fmt.Errorf("private dir: %w", err)
	}
	return JudgePrivate(st, path)
}

// mkdirPrivate creates path and its missing parents, each 0700.
func mkdirPrivate(path string) error {
	if parent := filepath.Dir(path); parent != path {
		if _, err := os.Lstat(parent); errors.Is(err, fs.ErrNotExist) {
			if err := mkdirPrivate(parent); err != nil {
				return err
			}
		}
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil // created meanwhile by someone else: the caller checks it
		}
		return err
	}
	return chmodDirNoFollow(path, 0o700)
}

// chmodDirNoFollow sets the mode the umask may have narrowed, on the
// directory we just made and never on whatever a symbolic link swapped in
// for it would point at.
func chmodDirNoFollow(path string, mode uint32) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer CloseFD(fd)
	if err := unix.Fchmod(fd, mode); err != nil {
		return &fs.PathError{Op: "chmod", Path: path, Err: err}
	}
	return nil
}

// JudgePrivate refuses, matching ErrNotPrivate, what st says is not a
// directory only the effective uid can change.
func JudgePrivate(st Stat, path string) error {
	uid := uint32(os.Geteuid())
	switch {
	case st.IsSymlink():
		return fmt.Errorf("%w: %s is a symbolic link", ErrNotPrivate, path)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory (mode %#o)", ErrNotPrivate, path, st.Mode)
	case st.UID != uid:
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrNotPrivate, path, st.UID, uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by group or others (mode %#o)", ErrNotPrivate, path, st.Mode&0o7777)
	}
	return nil
}
