package platform

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/incarnation"
)

// procStat is what this package needs from /proc/<pid>/stat.
type procStat struct {
	state      byte   // field 3: R, S, D, Z, ...
	startTicks string // field 22: start time in clock ticks since boot
}

// statBufSize holds any /proc/<pid>/stat line: it is about 300 bytes, and
// under 1.5 KiB with the longest command name and every numeric field at
// full width.
const statBufSize = 4096

// statBufs recycles read buffers: Incarnation and Alive sit on hot paths, and
// a buffer handed to read(2) always escapes to the heap.
var statBufs = sync.Pool{New: func() any { return new([statBufSize]byte) }}

// readProcStat reads and parses /proc/<pid>/stat. A missing entry means the
// process has been reaped: the error then wraps ErrProcessGone.
func readProcStat(pid int) (procStat, error) {
	var pathBuf [32]byte
	path := strconv.AppendInt(append(pathBuf[:0], "/proc/"...), int64(pid), 10)
	path = append(path, "/stat"...)
	buf := statBufs.Get().(*[statBufSize]byte)
	defer statBufs.Put(buf)
	n, err := readSmallFile(string(path), buf[:])
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH) {
			return procStat{}, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
		}
		return procStat{}, fmt.Errorf("read /proc/%d/stat: %w", pid, err)
	}
	st, err := parseProcStat(buf[:n])
	if err != nil {
		return procStat{}, fmt.Errorf("parse /proc/%d/stat: %w", pid, err)
	}
	return st, nil
}

// parseProcStat parses a /proc/<pid>/stat line. The command name (field 2)
// is wrapped in parentheses but may itself contain spaces, parentheses and
// even newlines, so the fixed fields are counted from the last ')'.
func parseProcStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, errors.New("no ')' after the command name")
	}
	rest := b[end+1:]
	var st procStat
	// Fields after the command name start at 3 (state); we need 3 and 22.
	for field := 3; field <= 22; field++ {
		if len(rest) == 0 || rest[0] != ' ' {
			return procStat{}, fmt.Errorf("field %d: missing", field)
		}
		rest = rest[1:]
		i := bytes.IndexAny(rest, " \n")
		if i < 0 {
			i = len(rest)
		}
		value := rest[:i]
		rest = rest[i:]
		switch field {
		case 3:
			if len(value) != 1 {
				return procStat{}, fmt.Errorf("field 3 (state): %q is not one letter", value)
			}
			st.state = value[0]
		case 22:
			if _, ok := incarnation.CanonicalUint(string(value)); !ok {
				return procStat{}, fmt.Errorf("field 22 (starttime): %q is not a decimal number", value)
			}
			st.startTicks = string(value)
		}
	}
	return st, nil
}

// readSmallFile reads the whole of a small file into buf with O_NOFOLLOW. It
// fails rather than truncating when the file does not fit.
func readSmallFile(path string, buf []byte) (int, error) {
	fd, err := atomicfile.OpenNoFollow(path)
	if err != nil {
		return 0, err
	}
	defer atomicfile.CloseFD(fd)
	n := 0
	for {
		if n == len(buf) {
			return 0, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return n, nil
		}
		n += m
	}
}

// isZombie reports whether pid has exited but not been reaped (state Z).
func isZombie(pid int) (bool, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return false, err
	}
	return st.state == 'Z', nil
}

// processFacts reads whether pid is a zombie and its incarnation in one look.
func processFacts(pid int) (zombie bool, inc string, err error) {
	st, err := readProcStat(pid)
	if err != nil {
		return false, "", err
	}
	return st.state == 'Z', incarnation.LinuxPrefix + st.startTicks, nil
}
