package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// The files/ directory of a bus holds the files outbox messages attach
// (DESIGN 5, "Files"): each entry belongs to the one message that names
// it and leaves with it, to sent/<id>.files/ once the message is posted;
// a message that fails keeps its entries in files/, so that moving it
// back to the outbox retries it whole.

// filesDir opens the bus's files/ directory, judged as the others are.
func (b *Box) filesDir() (*platform.Dir, error) {
	if b.files != nil {
		return b.files, nil
	}
	d, err := b.openIn(b.d.Files)
	if err != nil {
		return nil, fmt.Errorf("bus files directory: %w", err)
	}
	b.files = d
	return d, nil
}

// OpenFile opens the files/ entry name for reading: only a regular file
// of the effective uid, never through a symbolic link, never a FIFO
// (platform.Dir.Open); a refusal matches platform.ErrUnsafeFile.
func (b *Box) OpenFile(name string) (*os.File, platform.Entry, error) {
	if !ValidFileEntry(name) {
		return nil, platform.Entry{}, fmt.Errorf("%q is not an entry name of files/", name)
	}
	d, err := b.filesDir()
	if err != nil {
		return nil, platform.Entry{}, err
	}
	return d.Open(name)
}

// OpenFile opens d's files/ entry name as Box.OpenFile does, through the
// bus judged by its descriptors; the file stays open after they close.
func OpenFile(d Dirs, name string) (*os.File, platform.Entry, error) {
	b, err := OpenBox(d)
	if err != nil {
		return nil, platform.Entry{}, err
	}
	defer b.Close()
	return b.OpenFile(name)
}

// SentFilesDir is the name in sent/ of the directory message id's files
// go to.
func SentFilesDir(id string) string { return id + ".files" }

// MoveFiles moves the files/ entries of message id to sent/<id>.files/,
// durably: each is linked there first (never replacing a name), then
// removed from files/, so a crash between leaves it in both and the next
// call finishes. An entry already gone from files/ was moved before.
// Call it before the message's own move to sent/: a message still in the
// outbox with its entries gone would otherwise look broken.
func (b *Box) MoveFiles(id string, entries []string) error {
	if len(entries) == 0 {
		return nil
	}
	files, err := b.filesDir()
	if err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	dir := SentFilesDir(id)
	if err := b.sent.Mkdir(dir); err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	to, err := b.sent.OpenPrivateDir(dir)
	if err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	defer to.Close()
	for _, e := range entries {
		err := files.Link(e, to, e)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("move files of %s to sent: %w", id, err)
		}
	}
	if err := to.Sync(); err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	if err := b.sent.Sync(); err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	for _, e := range entries {
		if err := files.Remove(e); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("move files of %s to sent: %w", id, err)
		}
	}
	if err := files.Sync(); err != nil {
		return fmt.Errorf("move files of %s to sent: %w", id, err)
	}
	return nil
}

// Entries are the files/ entries m's attachments name, in order.
func (m Message) Entries() []string {
	var es []string
	for _, a := range m.Attachments {
		es = append(es, a.File)
	}
	return es
}

// pruneSentFiles removes sent/<name>, a message's files directory, with
// what it holds; false when name is not one (left alone).
func (b *Box) pruneSentFiles(name string) (bool, error) {
	if !strings.HasSuffix(name, ".files") {
		return false, nil
	}
	d, err := b.sent.OpenPrivateDir(name)
	if err != nil {
		return false, nil // not a private directory of ours: left alone
	}
	defer d.Close()
	names, err := d.Names()
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if err := d.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	if err := b.sent.RemoveDir(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// PruneFiles removes the files/ entries OrphanFiles finds, and returns
// how many it removed.
func PruneFiles(d Dirs, olderThan time.Time) (int, error) {
	names, err := OrphanFiles(d, olderThan)
	if err != nil || len(names) == 0 {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if err := RemoveFile(d, name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("prune files: %w", err)
		}
		n++
	}
	return n, nil
}

// OrphanFiles are the files/ entries last modified before olderThan that
// no message in outbox/ or failed/ names (a producer that died between
// copying a file and writing its message), temp files left as old
// included. When a message there cannot be read, none is: an entry it
// may name is never lost.
func OrphanFiles(d Dirs, olderThan time.Time) ([]string, error) {
	b, err := OpenBox(d)
	if err != nil {
		return nil, fmt.Errorf("files/ orphans: %w", err)
	}
	defer b.Close()
	files, err := b.filesDir()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("files/ orphans: %w", err)
	}
	named, err := b.namedFiles()
	if err != nil {
		return nil, fmt.Errorf("files/ orphans: %w", err)
	}
	names, err := files.Names()
	if err != nil {
		return nil, fmt.Errorf("files/ orphans: %w", err)
	}
	var out []string
	for _, name := range names {
		e, err := files.Stat(name)
		if err != nil || named[name] || !e.ModTime.Before(olderThan) || e.Type&fs.ModeDir != 0 {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}

// RemoveFile removes d's files/ entry name (never a directory, never
// through a link), durably.
func RemoveFile(d Dirs, name string) error {
	b, err := OpenBox(d)
	if err != nil {
		return err
	}
	defer b.Close()
	files, err := b.filesDir()
	if err != nil {
		return err
	}
	if err := files.Remove(name); err != nil {
		return err
	}
	return files.Sync()
}

// namedFiles are the files/ entries the messages in outbox/ and failed/
// name. An outbox file that is not a message yet (young, half judged)
// names nothing it could be refused for; one that cannot be read at all
// is an error.
func (b *Box) namedFiles() (map[string]bool, error) {
	named := map[string]bool{}
	add := func(data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		for _, a := range m.Attachments {
			named[a.File] = true
		}
	}
	for _, dir := range []*platform.Dir{b.out, b.failed} {
		names, err := dir.Names()
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			if strings.HasPrefix(name, ".") {
				continue
			}
			data, e, err := dir.ReadFile(name, 4*MaxFileSize)
			if errors.Is(err, fs.ErrNotExist) || (err != nil && !e.Regular()) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if dir == b.failed {
				var rec FailedRecord
				if json.Unmarshal(data, &rec) != nil {
					continue
				}
				data = []byte(rec.Message)
			}
			add(data)
		}
	}
	return named, nil
}
