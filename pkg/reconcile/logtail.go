package reconcile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// logTail returns the last n lines of a daemon's log, joined, to explain a
// crash in its status without sending the operator to a file first.
func logTail(dir string, n int) string {
	f, err := os.OpenFile(filepath.Join(dir, "daemon.log"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 2048
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	} else if fi.Size() > window {
		if _, err := f.Seek(-window, io.SeekEnd); err != nil {
			return ""
		}
	}
	data, _ := io.ReadAll(io.LimitReader(f, window))
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(data, nil))), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
