package relay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/redact"
)

// A message's files are posted after its text, each as its own part and
// its own message at the service (DESIGN 5, "Files"): the long text's
// file (bus.PartFileText) first, then attachments[k] as bus.FilePart(k).
// Everything about them that can fail is decided before the message's
// first request (prepareFiles): a file over the service's limits, a
// files/ entry that is missing or not a regular file of ours, content
// that changed since its upload was attempted. Such a message goes to
// failed/ naming the file and the limit, and its entries stay in files/.

// filePart is one file part of a message, as prepared for its requests.
type filePart struct {
	part  string // bus.FilePart(k), or bus.PartFileText
	label string // how a failure names it: "attachments[1] report.pdf"
	entry string // the files/ entry; "" for content held in memory
	name  string
	ctype string
	size  int64
	sum   string // hex SHA-256 of the content as uploaded
	// data is the content when it is not the entry's bytes as they are
	// (a redacted text file, the long text): built in memory, bounded by
	// maxInMemoryFile and the service's MaxBytes.
	data []byte
}

// maxInMemoryFile bounds a file the relay holds whole: a text attachment
// to redact, the long text's file. Any other file is streamed.
const maxInMemoryFile = 16 << 20

// fileFailure is why a message's files cannot be posted: the message
// fails with it, before any request.
type fileFailure struct{ reason string }

func (e *fileFailure) Error() string { return e.reason }

// prepareFiles prepares the file parts of m rendered as rd that are not
// done yet (done reports a part key done), checked against the service's
// limits and, for a part attempted before, against the content its
// attempt recorded. A *fileFailure says why the message cannot be posted
// (a file that cannot be read too); errStopped that the relay stops
// while the bus is refused.
func (r *Relay) prepareFiles(ctx context.Context, m bus.Message, rd Rendered, done func(key string) (bus.Record, bool, bool)) ([]filePart, error) {
	if len(m.Attachments) == 0 && rd.TextFile == nil {
		return nil, nil
	}
	lim := r.opts.Poster.Files()
	if why := countLimit(len(m.Attachments), lim); why != "" {
		return nil, &fileFailure{why}
	}
	var parts []filePart
	if tf := rd.TextFile; tf != nil {
		data := []byte(tf.Content)
		parts = append(parts, filePart{part: bus.PartFileText, label: "the text as a file " + tf.Name,
			name: tf.Name, ctype: tf.ContentType, size: int64(len(data)), sum: sumOf(data), data: data})
	}
	box, err := r.openBus(ctx)
	if err != nil {
		return nil, err
	}
	defer box.Close()
	for k, a := range m.Attachments {
		fp := filePart{part: bus.FilePart(k), label: fmt.Sprintf("attachments[%d] %s", k, a.Name), entry: a.File, name: a.Name}
		if _, _, isDone := done(m.ID + "/" + fp.part); isDone {
			continue // posted: its entry may have moved on already
		}
		if err := r.readFile(box, &fp, a.ContentType, lim); err != nil {
			return nil, err
		}
		parts = append(parts, fp)
	}
	for _, fp := range parts {
		if why := sizeLimit(fp.label, fp.size, lim); why != "" {
			return nil, &fileFailure{why}
		}
		// Never another content under a key already attempted: a lookup
		// or re-post would take one for the other.
		if rec, pending, _ := done(m.ID + "/" + fp.part); pending && rec.FileSum != "" && rec.FileSum != fp.sum {
			return nil, &fileFailure{fmt.Sprintf("%s changed since its upload was attempted (its content differs from the attempt's): not uploaded again under the same part", fp.label)}
		}
	}
	return parts, nil
}

// readFile opens fp's entry and reads it through once: its size, its
// content type, its sum, and, for a text file to redact, its redacted
// content. An entry that is not a regular file of ours, or gone, fails
// the message.
func (r *Relay) readFile(box *bus.Box, fp *filePart, ctype string, lim FileLimits) error {
	f, e, err := box.OpenFile(fp.entry)
	if err != nil {
		return &fileFailure{fmt.Sprintf("%s: files/%s cannot be posted: %v", fp.label, fp.entry, err)}
	}
	defer f.Close()
	if why := sizeLimit(fp.label, e.Size, lim); why != "" {
		return &fileFailure{why}
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return &fileFailure{fmt.Sprintf("%s: reading files/%s: %v", fp.label, fp.entry, err)}
	}
	head = head[:n]
	fp.ctype = contentType(ctype, fp.name, head)
	rest := io.MultiReader(bytes.NewReader(head), f)
	if r.opts.Render.Redact && isText(fp.ctype, head) {
		if e.Size > maxInMemoryFile {
			return &fileFailure{fmt.Sprintf("%s is %s, over %s, the largest text file the relay redacts (redact: true)",
				fp.label, sizeText(e.Size), limitText(maxInMemoryFile))}
		}
		data, err := io.ReadAll(io.LimitReader(rest, maxInMemoryFile+1))
		if err != nil {
			return &fileFailure{fmt.Sprintf("%s: reading files/%s: %v", fp.label, fp.entry, err)}
		}
		fp.data = []byte(redact.Content(string(data), r.opts.Render.Home))
		fp.size, fp.sum = int64(len(fp.data)), sumOf(fp.data)
		return nil
	}
	h := sha256.New()
	n64, err := io.Copy(h, rest)
	if err != nil {
		return &fileFailure{fmt.Sprintf("%s: reading files/%s: %v", fp.label, fp.entry, err)}
	}
	fp.size, fp.sum = n64, hex.EncodeToString(h.Sum(nil))
	return nil
}

// record is fp's part's attempt record fields.
func (fp filePart) record(rec bus.Record) bus.Record {
	rec.Part, rec.File, rec.Name, rec.ContentType, rec.Size, rec.FileSum = fp.part, fp.entry, fp.name, fp.ctype, fp.size, fp.sum
	return rec
}

// upload is fp as a Poster uploads it. Open re-opens the entry for each
// request (never holding it whole), refuses one whose size is not the
// one recorded, and fails the read at its end when the content's sum is
// not the recorded one: a file changed under the relay is never posted
// as the part it was attempted as.
func (r *Relay) upload(fp filePart) *Upload {
	u := &Upload{Name: fp.name, ContentType: fp.ctype, Size: fp.size, Sum: fp.sum}
	if fp.data != nil {
		data := fp.data
		u.Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		return u
	}
	u.Open = func() (io.ReadCloser, error) {
		f, e, err := bus.OpenFile(r.opts.Bus, fp.entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fp.label, err)
		}
		if e.Size != fp.size {
			_ = f.Close()
			return nil, fmt.Errorf("%s: files/%s is %d bytes now, not %d as prepared", fp.label, fp.entry, e.Size, fp.size)
		}
		return &sumReader{f: f, h: sha256.New(), want: fp.sum, label: fp.label}, nil
	}
	return u
}

// verify proves that fp's entry still holds the content prepared (its
// sum), reading it through once; content held in memory always does.
func (r *Relay) verify(fp filePart) error {
	if fp.data != nil {
		return nil
	}
	u := r.upload(fp)
	rc, err := u.Open()
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		_ = rc.Close()
	}
	if err != nil {
		return &fileFailure{fmt.Sprintf("%s changed since its upload was attempted, so it is not uploaded again under the same part: %v", fp.label, err)}
	}
	return nil
}

// sumReader reads a file and, at its end, fails unless its content had
// the sum wanted.
type sumReader struct {
	f     io.ReadCloser
	h     hash.Hash
	want  string
	label string
}

func (s *sumReader) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	s.h.Write(p[:n])
	if errors.Is(err, io.EOF) && hex.EncodeToString(s.h.Sum(nil)) != s.want {
		return n, fmt.Errorf("%s: the file changed while it was uploaded", s.label)
	}
	return n, err
}

func (s *sumReader) Close() error { return s.f.Close() }

// countLimit says why a message with n attachments cannot be posted under
// lim ("" when it can).
func countLimit(n int, lim FileLimits) string {
	switch {
	case n == 0:
		return ""
	case lim.MaxFiles == 0:
		return fmt.Sprintf("the message has %d files, and %s takes no files from this bot", n, serviceName(lim))
	case n > lim.MaxFiles:
		return fmt.Sprintf("the message has %d files, over %s's %d files per message", n, serviceName(lim), lim.MaxFiles)
	}
	return ""
}

// sizeLimit says why a file of size bytes cannot be posted under lim (""
// when it can).
func sizeLimit(label string, size int64, lim FileLimits) string {
	if size <= lim.MaxBytes {
		return ""
	}
	return fmt.Sprintf("%s is %s, over %s's %s per file", label, sizeText(size), serviceName(lim), limitText(lim.MaxBytes))
}

func serviceName(lim FileLimits) string {
	if lim.Service == "" {
		return "the service"
	}
	return lim.Service
}

// sizeText is a size as people read it: "12.0 MiB", "512 bytes".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// limitText is a limit as people read it: "10 MiB" when whole, else as
// sizeText.
func limitText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n%1_000_000 == 0 && n > 0 {
		return fmt.Sprintf("%d MB", n/1_000_000)
	}
	return sizeText(n)
}

// contentType is a file's content type: the message's, else by the
// name's extension, else sniffed from its first bytes.
func contentType(given, name string, head []byte) string {
	if given != "" {
		return given
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// isText: a file redact scrubs (DESIGN 5, "Files"): text/*, JSON, or
// sniffed as text. Any other file is sent as it is.
func isText(ctype string, head []byte) bool {
	mt, _, _ := mime.ParseMediaType(ctype)
	if strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") {
		return true
	}
	return strings.HasPrefix(http.DetectContentType(head), "text/")
}

func sumOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}
