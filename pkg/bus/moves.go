package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// ErrLeftInPlace is returned (wrapped) by Fail for an outbox entry that
// is not a regular file (a symbolic link, a FIFO, a directory): its
// failed/ record is written, but the entry itself is never opened,
// followed or removed. It stays in the outbox, so ListOutbox keeps
// listing it: the engine remembers the names Fail answered this for and
// skips them (after a restart, Fail on it again rewrites the same record
// and answers the same, once).
var ErrLeftInPlace = errors.New("outbox entry left in place")

// MoveToSent moves the regular file outbox/name to sent/name, durably,
// through the bus's descriptors (OpenBox judges the directories first).
// The name is never replaced: a sent/name already there with the same
// bytes (a move a crash interrupted, or the same message published twice)
// is success, and the outbox copy is removed; with different bytes it is
// an error and both are left as they are.
func MoveToSent(d Dirs, name string) error {
	b, err := OpenBox(d)
	if err != nil {
		return fmt.Errorf("move to sent: %w", err)
	}
	defer b.Close()
	return b.MoveToSent(name)
}

// MoveToSent is the package's MoveToSent through b.
func (b *Box) MoveToSent(name string) error {
	return b.MoveAllToSent([]string{name})[0]
}

// MoveAllToSent is MoveToSent for each of names at the cost of one sync
// of each directory, not two per name: every file is linked into sent/,
// sent/ is synced, and only then is any removed from the outbox, which is
// synced last. errs[i] is names[i]'s error; a name whose link failed is
// left in the outbox.
func (b *Box) MoveAllToSent(names []string) (errs []error) {
	errs = make([]error, len(names))
	linked := false
	for i, name := range names {
		errs[i] = b.linkToSent(name)
		linked = linked || errs[i] == nil
	}
	if !linked {
		return errs
	}
	// The invariant: no outbox file is removed before its sent/ copy is
	// durable, so a crash between the steps leaves both, and the next
	// call finishes the move.
	if err := b.sent.Sync(); err != nil {
		return failLinked(errs, err)
	}
	for i, name := range names {
		if errs[i] != nil {
			continue
		}
		if err := b.out.Remove(name); err != nil {
			errs[i] = fmt.Errorf("move to sent: %w", err)
		}
	}
	if err := b.out.Sync(); err != nil {
		return failLinked(errs, err)
	}
	return errs
}

// linkToSent links outbox/name into sent/ under the same name. A hard link
// never replaces a name: a sent/name already there with the same bytes (a
// move a crash interrupted, or the same message published twice) is
// success; with different bytes it is an error.
func (b *Box) linkToSent(name string) error {
	if err := checkEntryName(name); err != nil {
		return fmt.Errorf("move to sent: %w", err)
	}
	e, err := b.out.Stat(name)
	if err != nil {
		return fmt.Errorf("move to sent: %w", err)
	}
	if kind := untrusted(e); kind != "" {
		return fmt.Errorf("move to sent: %s is %s: %w", filepath.Join(b.d.Outbox, name), kind, errNotRegular)
	}
	if err := b.out.Link(name, b.sent, name); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("move to sent: %w", err)
		}
		if err := b.sameBytes(name); err != nil {
			return fmt.Errorf("move to sent: %w", err)
		}
	}
	return nil
}

// failLinked sets err on every name not failed yet.
func failLinked(errs []error, err error) []error {
	for i := range errs {
		if errs[i] == nil {
			errs[i] = fmt.Errorf("move to sent: %w", err)
		}
	}
	return errs
}

// sameBytes errors unless outbox/name and sent/name hold the same bytes.
func (b *Box) sameBytes(name string) error {
	da, _, err := b.out.ReadFile(name, MaxFileSize)
	if err != nil {
		return err
	}
	db, _, err := b.sent.ReadFile(name, MaxFileSize)
	if err != nil {
		return fmt.Errorf("%s is already there and cannot be read: %w", filepath.Join(b.d.Sent, name), err)
	}
	if !bytes.Equal(da, db) {
		return fmt.Errorf("%s is already there with different content than %s", filepath.Join(b.d.Sent, name), filepath.Join(b.d.Outbox, name))
	}
	return nil
}

// FailedRecord is the JSON file failed/<name>: why an outbox entry was
// not posted, and what it held.
type FailedRecord struct {
	Name     string `json:"name"`
	Reason   string `json:"reason"`
	FailedAt int64  `json:"failedAt"` // unix ms
	// Message is the entry's bytes (at most MaxFileSize) as a string, ""
	// when they could not be read. Bytes that are not UTF-8 are replaced
	// by U+FFFD, as JSON strings must be text.
	Message string `json:"message"`
}

// Fail records in failed/ why the outbox entry name was not posted, then
// removes the entry from the outbox, through the bus's descriptors. The
// record never replaces an earlier one (see Box.Fail). An entry that is
// not a regular file of the effective uid is never opened or followed:
// the record says what it was, the entry is left where it is, and the
// error matches ErrLeftInPlace.
func Fail(d Dirs, name, reason string) error {
	b, err := OpenBox(d)
	if err != nil {
		return fmt.Errorf("fail: %w", err)
	}
	defer b.Close()
	_, err = b.Fail(name, reason)
	return err
}

// Fail is the package's Fail through b; added says whether a record was
// added to failed/ (false: the same one was there already, or none could
// be written).
func (b *Box) Fail(name, reason string) (added bool, err error) {
	if err := checkEntryName(name); err != nil {
		return false, fmt.Errorf("fail: %w", err)
	}
	e, err := b.out.Stat(name)
	if err != nil {
		return false, fmt.Errorf("fail: %w", err)
	}
	rec := FailedRecord{Name: name, Reason: reason, FailedAt: time.Now().UnixMilli()}
	kind := untrusted(e)
	if kind != "" {
		rec.Reason = fmt.Sprintf("%s (the outbox entry is %s: not opened, left in place)", reason, kind)
	} else if data, _, err := b.out.ReadFile(name, MaxFileSize); err == nil {
		rec.Message = string(bytes.ToValidUTF8(data, []byte("\uFFFD")))
	} else {
		rec.Reason = fmt.Sprintf("%s (the file could not be read: %v)", reason, err)
	}
	added, err = b.record(rec)
	if err != nil {
		return false, fmt.Errorf("fail %s: %w", name, err)
	}
	if kind != "" {
		return added, fmt.Errorf("fail: %s is %s: %w", filepath.Join(b.d.Outbox, name), kind, ErrLeftInPlace)
	}
	if err := b.out.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return added, fmt.Errorf("fail %s: recorded, but %w", name, err)
	}
	if err := b.out.Sync(); err != nil {
		return added, fmt.Errorf("fail %s: %w", name, err)
	}
	return added, nil
}

func encodeFailed(rec FailedRecord) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CountFailed returns how many records failed/ holds (its names not
// starting with ".", which are temp files).
func CountFailed(d Dirs) (int, error) {
	names, err := visibleNames(d.Failed)
	if err != nil {
		return 0, fmt.Errorf("count failed: %w", err)
	}
	return len(names), nil
}

// PruneSent removes the regular files in sent/ last modified before
// olderThan and returns how many it removed, through the bus judged by
// its descriptors (OpenBox): a sent/ swapped for a link is refused, never
// pruned. Anything else there (a link, a directory) is left alone.
func PruneSent(d Dirs, olderThan time.Time) (int, error) {
	b, err := OpenBox(d)
	if err != nil {
		return 0, fmt.Errorf("prune sent: %w", err)
	}
	defer b.Close()
	names, err := b.sent.Names()
	if err != nil {
		return 0, fmt.Errorf("prune sent: %w", err)
	}
	n := 0
	for _, name := range names {
		e, err := b.sent.Stat(name) // an lstat: a link is judged, not followed
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("prune sent: %w", err)
		}
		if !e.ModTime.Before(olderThan) {
			continue
		}
		if !e.Regular() {
			// A message's files (sent/<id>.files/) go with it.
			if pruned, err := b.pruneSentFiles(name); err != nil {
				return n, fmt.Errorf("prune sent: %w", err)
			} else if pruned {
				n++
			}
			continue
		}
		if err := b.sent.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("prune sent: %w", err)
		}
		n++
	}
	if n > 0 {
		if err := b.sent.Sync(); err != nil {
			return n, fmt.Errorf("prune sent: %w", err)
		}
	}
	return n, nil
}
