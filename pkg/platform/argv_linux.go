package platform

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// argvBufs recycles read buffers: every classification of a live owner
// reads its command line, and a fresh 64 KiB buffer each time would cost
// more than the read.
var argvBufs = sync.Pool{New: func() any { return new([MaxArgvSize]byte) }}

// readArgv reads /proc/<pid>/cmdline. A zombie's (and a kernel thread's)
// is empty.
func readArgv(pid int) ([]string, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/cmdline"
	buf := argvBufs.Get().(*[MaxArgvSize]byte)
	defer argvBufs.Put(buf)
	n, err := readSmallFile(path, buf[:])
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ESRCH):
		return nil, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, ErrArgvTooLong, MaxArgvSize)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return splitNUL(buf[:n]), nil
}

// splitNUL splits NUL-terminated strings; a last one without its NUL (a
// process that rewrote its own argv) counts as well.
func splitNUL(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	argv := make([]string, len(parts))
	for i, p := range parts {
		argv[i] = string(p)
	}
	return argv
}
