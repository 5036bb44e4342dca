package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// maxSpecFile caps a spec file: thousands of objects fit, an endless file does not.
const maxSpecFile = 1 << 20

// stamp tells whether a file may have changed without reading it.
type stamp struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

// racyWindow: a file modified this close to when it was read may change again
// with the same size and mtime (coarse timestamps), so its stamp is not trusted
// and its content is compared instead, as git does for racily clean entries.
const racyWindow = 2 * time.Second

func stampOf(fi os.FileInfo) stamp {
	s := stamp{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), st.Ino
	}
	return s
}

// unchanged reports whether a file with stamp now is certainly the one read at readAt.
func (s stamp) unchanged(now stamp, readAt time.Time) bool {
	return s == now && s.mtime.Before(readAt.Add(-racyWindow))
}

// readSpecFile reads a spec file, refusing anything but a regular file
// (a symbolic link included: --spec names the file itself) and anything over
// the cap. It never blocks: the loop reloads the spec from its one goroutine,
// and a FIFO planted in the spec dir must not freeze it.
func readSpecFile(path string) ([]byte, stamp, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, stamp{}, errors.New("no such file")
		}
		return nil, stamp{}, err
	}
	defer f.Close()
	if fi.Size() > maxSpecFile {
		return nil, stamp{}, fmt.Errorf("larger than %d bytes", maxSpecFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSpecFile+1))
	if err != nil {
		return nil, stamp{}, unwrapPathError(err)
	}
	if len(data) > maxSpecFile {
		return nil, stamp{}, fmt.Errorf("larger than %d bytes", maxSpecFile)
	}
	// An editor writing in place truncates first: a reader can catch the file
	// empty. Taking that as "no daemons" would stop every one of them, so an
	// empty file is a failed read; a file of comments declares nothing, validly.
	if len(data) == 0 {
		return nil, stamp{}, errors.New("file is empty (caught mid-write?); to declare no daemons, leave a comment in it")
	}
	return data, stampOf(fi), nil
}

func sameContent(a, b []byte) bool { return a != nil && bytes.Equal(a, b) }
