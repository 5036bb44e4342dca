package bus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// ErrUnsafeJournal reports a journal path that is not a regular file of
// ours, private: a symbolic link, a FIFO, a directory, another uid's file,
// one that group or others may write. It is refused, never opened for
// reading or writing past the check, and left as it is.
var ErrUnsafeJournal = errors.New("journal is not a private regular file")

// openJournalFile opens path with flags plus O_NOFOLLOW (a final symbolic
// link is ELOOP) and O_NONBLOCK (a FIFO swapped in does not block the
// open), then judges what was opened by fstat. With O_CREAT a new file is
// made 0600 whatever the umask; created says so.
func openJournalFile(path string, flags int) (f *os.File, created bool, err error) {
	var fd int
	for {
		fd, err = unix.Open(path, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o600)
		if err != unix.EINTR {
			break
		}
	}
	if flags&unix.O_CREAT != 0 && err == nil {
		// O_CREAT without O_EXCL cannot say whether it made the file:
		// an empty file of ours is treated as new either way.
		created = true
	}
	if err != nil {
		var st unix.Stat_t
		if (err == unix.ELOOP || err == unix.ENXIO || err == unix.EISDIR) && unix.Lstat(path, &st) == nil {
			return nil, false, fmt.Errorf("%w: %s is %s", ErrUnsafeJournal, path, describeMode(st.Mode))
		}
		return nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f = os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		_ = f.Close()
		return nil, false, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if err := judgeJournal(path, st); err != nil {
		_ = f.Close()
		return nil, false, err
	}
	if created && st.Size == 0 {
		if err := unix.Fchmod(fd, 0o600); err != nil {
			_ = f.Close()
			return nil, false, &fs.PathError{Op: "chmod", Path: path, Err: err}
		}
	} else {
		created = false
	}
	return f, created, nil
}

// judgeJournal refuses what the journal must not be.
func judgeJournal(path string, st unix.Stat_t) error {
	switch {
	case uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%w: %s is %s", ErrUnsafeJournal, path, describeMode(st.Mode))
	case st.Uid != uint32(os.Geteuid()):
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeJournal, path, st.Uid, os.Geteuid())
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%w: %s is writable by group or others (mode %#o)", ErrUnsafeJournal, path, st.Mode&0o7777)
	}
	return nil
}

// describeMode names a file type for an error or a failed/ record.
func describeMode[M uint16 | uint32](mode M) string {
	switch uint32(mode) & unix.S_IFMT {
	case unix.S_IFREG:
		return "a regular file"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	}
	return fmt.Sprintf("of unknown type (mode %#o)", mode)
}

// syncDir makes the creation, rename or removal of names in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
