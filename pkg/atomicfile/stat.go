package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// Stat is the part of a stat(2) answer that identifies a file version.
type Stat struct {
	Dev, Ino uint64
	Mode     uint32
	UID      uint32
	Nlink    uint64
	Size     int64
	MtimeNs  int64
	CtimeNs  int64
}

// StatOf keeps what identifies a file version of a stat(2) answer.
func StatOf(st *unix.Stat_t) Stat {
	return Stat{
		Dev:     uint64(st.Dev),
		Ino:     st.Ino,
		Mode:    uint32(st.Mode),
		UID:     st.Uid,
		Nlink:   uint64(st.Nlink),
		Size:    st.Size,
		MtimeNs: st.Mtim.Nano(),
		CtimeNs: st.Ctim.Nano(),
	}
}

func (s Stat) IsRegular() bool { return s.Mode&unix.S_IFMT == unix.S_IFREG }
func (s Stat) IsDir() bool     { return s.Mode&unix.S_IFMT == unix.S_IFDIR }
func (s Stat) IsSymlink() bool { return s.Mode&unix.S_IFMT == unix.S_IFLNK }

// SameFile reports whether two answers name one inode.
func (s Stat) SameFile(o Stat) bool { return s.Dev == o.Dev && s.Ino == o.Ino }

// OpenNoFollow opens path read-only without following a final symbolic link
// (ELOOP) and without blocking on a FIFO or device that the name may have
// been swapped for since the caller last looked.
func OpenNoFollow(path string) (int, error) {
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

// Fstat is fstat(2) of fd, its error naming path.
func Fstat(fd int, path string) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return Stat{}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	return StatOf(&st), nil
}

// Lstat is lstat(2) of path: a final symbolic link is not followed.
func Lstat(path string) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return StatOf(&st), nil
}

// ExplainOpenErr turns the ELOOP that O_NOFOLLOW gives for a final symbolic
// link into ErrUnsafeFile; ELOOP from a loop among the parents stays as is.
func ExplainOpenErr(path string, err error) error {
	if !errors.Is(err, unix.ELOOP) {
		return err
	}
	if st, lerr := Lstat(path); lerr == nil && st.IsSymlink() {
		return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafeFile, path)
	}
	return err
}

// ReadCappedFD reads fd to EOF, failing with ErrTooLarge once more than max
// bytes arrive: a file that grows without end cannot exhaust memory.
func ReadCappedFD(fd int, path string, max int64, sizeHint int64) ([]byte, error) {
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

// CloseFD closes a descriptor that was only read from: nothing is lost if
// close fails.
func CloseFD(fd int) { _ = unix.Close(fd) }
