package bus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// MaxAttachmentBytes caps a file a producer may attach: the largest any
// service takes (Slack's 1 GiB). Each service's own, smaller limit is the
// relay's to enforce, naming it.
const MaxAttachmentBytes = 1 << 30

// AddFile copies the file at path into d's files/ as attachments[k] of
// message id, and returns the attachment that names it (DESIGN 5,
// "Files"). The file is read safely: opened without following a link at
// path and without blocking (a FIFO or a device is refused, never read),
// then judged by its descriptor: a regular file of at most
// MaxAttachmentBytes. The copy is atomic (a hidden temp file, fsynced,
// renamed to files/<id>-<k>-<name>, the directory fsynced), 0600. Name
// is path's base name; the content type comes from its extension, else
// from its first bytes.
func AddFile(d Dirs, id string, k int, path string) (Attachment, error) {
	src, size, err := openSource(path)
	if err != nil {
		return Attachment{}, err
	}
	defer src.Close()
	name := filepath.Base(path)
	a := Attachment{File: EntryName(id, k, name), Name: name}
	if why := validAttachmentName(name); why != "" {
		return Attachment{}, fmt.Errorf("%s: its name %s", path, why)
	}
	if err := EnsureDirs(d); err != nil {
		return Attachment{}, err
	}
	dst := filepath.Join(d.Files, a.File)
	tmp, f, err := atomicfile.CreateTemp(dst)
	if err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	head := make([]byte, 512)
	n, err := io.ReadFull(src, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Attachment{}, fmt.Errorf("read %s: %w", path, err)
	}
	head = head[:n]
	a.ContentType = mime.TypeByExtension(filepath.Ext(name))
	if a.ContentType == "" {
		a.ContentType = http.DetectContentType(head)
	}
	if _, err := f.Write(head); err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	// At most what fstat said, and one byte more to tell a file that grew.
	copied, err := io.Copy(f, io.LimitReader(src, MaxAttachmentBytes+1-int64(n)))
	if err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	if total := int64(n) + copied; total > MaxAttachmentBytes {
		return Attachment{}, fmt.Errorf("%s grew past %d bytes (1 GiB) while it was copied", path, int64(MaxAttachmentBytes))
	} else if total != size {
		return Attachment{}, fmt.Errorf("%s changed size while it was copied (%d bytes, then %d): copy it again once it is written", path, size, total)
	}
	if err := atomicfile.SyncFile(f); err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	done = true
	if err := atomicfile.SyncDir(d.Files); err != nil {
		return Attachment{}, fmt.Errorf("copy %s: %w", path, err)
	}
	return a, nil
}

// openSource opens path for AddFile: O_NOFOLLOW (a link is refused, never
// followed), O_NONBLOCK (a FIFO does not hang the open), then judged by
// its descriptor: a regular file, at most MaxAttachmentBytes.
func openSource(path string) (*os.File, int64, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, 0, fmt.Errorf("%s is a symbolic link: give the file itself", path)
	}
	if err != nil {
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, err
	}
	switch {
	case !st.Mode().IsRegular():
		_ = f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file (%v): only a file's content can be attached", path, st.Mode().Type())
	case st.Size() > MaxAttachmentBytes:
		_ = f.Close()
		return nil, 0, fmt.Errorf("%s is %d bytes, over %d (1 GiB), the most any service takes", path, st.Size(), int64(MaxAttachmentBytes))
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// EntryName is the files/ entry of attachments[k] of message id, named
// name: "<id>-<k>-<name>", the name's characters outside [A-Za-z0-9._-]
// replaced by '_', cut to fit MaxAttachmentName.
func EntryName(id string, k int, name string) string {
	prefix := id + "-" + strconv.Itoa(k) + "-"
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if room := MaxAttachmentName - len(prefix); len(s) > room {
		s = s[len(s)-room:] // the end keeps the extension
	}
	return prefix + s
}
