package spec

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// notRegularError says what a path that must be a regular file is instead.
type notRegularError struct{ kind string }

func (e *notRegularError) Error() string { return "not a regular file (" + e.kind + ")" }

const kindSymlink = "a symbolic link"

// openRegular opens path for reading and returns it only if what was opened
// is a regular file. The type is judged through the descriptor, so nothing
// can be swapped in between a look and the open. The open itself must not
// block or follow anything: O_NONBLOCK returns at once on a FIFO (a plain
// open waits for a writer, forever), O_NOFOLLOW refuses a final symbolic
// link, and O_NOCTTY keeps a terminal named here from becoming ours.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	fd, err := openNonBlocking(path)
	if err != nil {
		return nil, nil, explainOpen(path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, unwrapPathError(err)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, &notRegularError{kind: fileKind(fi.Mode())}
	}
	return f, fi, nil
}

func openNonBlocking(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// explainOpen names what path is when open(2) refused it for its type:
// ELOOP for a final symbolic link under O_NOFOLLOW, ENXIO (Linux) or
// EOPNOTSUPP (macOS) for a socket, ENXIO for a device without a driver. The
// lstat only describes; nothing is decided on it.
func explainOpen(path string, err error) error {
	if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENXIO) && !errors.Is(err, unix.EOPNOTSUPP) {
		return err
	}
	if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
		return &notRegularError{kind: fileKind(fi.Mode())}
	}
	return err
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return kindSymlink
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}
