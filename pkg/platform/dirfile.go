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

// Open opens d's entry name for reading: only a regular file of the
// effective uid, never through a symbolic link (O_NOFOLLOW) and never
// blocking on a FIFO (O_NONBLOCK), judged by the descriptor it opened so
// that a name swapped between a look and the open is caught. Anything
// else is refused with ErrUnsafeFile, and nothing of it is read.
func (d *Dir) Open(name string) (*os.File, Entry, error) {
	if err := checkEntryName(name); err != nil {
		return nil, Entry{}, err
	}
	path := filepath.Join(d.path, name)
	fd, err := openat(d.fd(), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if errors.Is(err, unix.ELOOP) {
		return nil, Entry{}, fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeFile, path)
	}
	if err != nil {
		return nil, Entry{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	st, err := atomicfile.Fstat(fd, path)
	if err != nil {
		atomicfile.CloseFD(fd)
		return nil, Entry{}, err
	}
	e := entryOf(st)
	if err := e.trusted(path); err != nil {
		atomicfile.CloseFD(fd)
		return nil, e, err
	}
	// Reads block again: a regular file never waits, and os.File's
	// poller is not wanted for it.
	if err := unix.SetNonblock(fd, false); err != nil {
		atomicfile.CloseFD(fd)
		return nil, e, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), e, nil
}

// Mkdir makes d's subdirectory name, mode 0700; one already there is
// success (OpenPrivateDir judges it).
func (d *Dir) Mkdir(name string) error {
	if err := checkEntryName(name); err != nil {
		return err
	}
	for {
		err := unix.Mkdirat(d.fd(), name, 0o700)
		switch {
		case err == unix.EINTR:
			continue
		case err == nil || err == unix.EEXIST:
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: filepath.Join(d.path, name), Err: err}
	}
}

// RemoveDir removes d's subdirectory name, which must be empty.
func (d *Dir) RemoveDir(name string) error {
	if err := checkEntryName(name); err != nil {
		return err
	}
	if err := unix.Unlinkat(d.fd(), name, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}
