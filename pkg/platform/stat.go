package platform

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// fileStat is the part of a stat(2) answer that identifies a file version.
type fileStat struct {
	dev, ino uint64
	mode     uint32
	uid      uint32
	nlink    uint64
	size     int64
	mtimeNs  int64
	ctimeNs  int64
}

func fileStatOf(st *unix.Stat_t) fileStat {
	return fileStat{
		dev:     uint64(st.Dev),
		ino:     st.Ino,
		mode:    uint32(st.Mode),
		uid:     st.Uid,
		nlink:   uint64(st.Nlink),
		size:    st.Size,
		mtimeNs: st.Mtim.Nano(),
		ctimeNs: st.Ctim.Nano(),
	}
}

func (s fileStat) isRegular() bool { return s.mode&unix.S_IFMT == unix.S_IFREG }
func (s fileStat) isDir() bool     { return s.mode&unix.S_IFMT == unix.S_IFDIR }
func (s fileStat) isSymlink() bool { return s.mode&unix.S_IFMT == unix.S_IFLNK }

// sameFile reports whether two answers name one inode.
func (s fileStat) sameFile(o fileStat) bool { return s.dev == o.dev && s.ino == o.ino }

// openNoFollow opens path read-only without following a final symbolic link
// (ELOOP) and without blocking on a FIFO or device that the name may have
// been swapped for since the caller last looked.
func openNoFollow(path string) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

func fstat(fd int, path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileStat{}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	return fileStatOf(&st), nil
}

func lstat(path string) (fileStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileStat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fileStatOf(&st), nil
}

// explainOpenErr turns the ELOOP that O_NOFOLLOW gives for a final symbolic
// link into ErrUnsafeFile; ELOOP from a loop among the parents stays as is.
func explainOpenErr(path string, err error) error {
	if !errors.Is(err, unix.ELOOP) {
		return err
	}
	if st, lerr := lstat(path); lerr == nil && st.isSymlink() {
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeFile, path)
	}
	return err
}

// readCapped reads fd to EOF, failing with ErrTooLarge once more than max
// bytes arrive: a file that grows without end cannot exhaust memory.
func readCapped(fd int, path string, max int64, sizeHint int64) ([]byte, error) {
	n := min(max, sizeHint) + 1
	if n < 512 {
		n = 512
	}
	buf := make([]byte, 0, n)
	for {
		if int64(len(buf)) > max {
			return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, path, max)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		limit := min(int64(cap(buf)), max+1)
		m, err := unix.Read(fd, buf[len(buf):limit])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+m]
	}
}

// closeFD closes a descriptor that was only read from: nothing is lost if
// close fails.
func closeFD(fd int) { _ = unix.Close(fd) }
