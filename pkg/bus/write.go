package bus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

// Write publishes m in the outbox directory dir as <id>.json and returns
// its id, generating one (NewID) when m has none. Defaults are applied and
// the message validated first: nothing is written for an invalid one.
// The outbox must exist and be private (a real directory, ours, not
// writable by group or others): it is not created here, as a missing one
// means no daemon of that name has a bus.
//
// The file appears whole or not at all, and never replaces another: the
// same id already published with the same content is success (the same
// message, written once); with different content it is an error naming
// the id.
//
// The id is also taken once the message has left the outbox: in the
// outbox's siblings sent/ (posted) and failed/. The same content in sent/
// is success with nothing written, so a producer that retries after a
// lost answer never has a message posted twice; different content there,
// or any file in failed/, is an error naming the id and where it is.
func Write(dir string, m Message) (string, error) {
	if m.ID == "" {
		m.ID = NewID()
	}
	m = m.WithDefaults()
	if errs := m.Validate(); len(errs) > 0 {
		return "", fmt.Errorf("message %q: %w", m.ID, errors.Join(errs...))
	}
	data, err := encode(m)
	if err != nil {
		return "", fmt.Errorf("message %q: %w", m.ID, err)
	}
	if len(data) > MaxFileSize {
		return "", fmt.Errorf("message %q: text: encoded message is %d bytes, over %d", m.ID, len(data), MaxFileSize)
	}
	if err := checkOutbox(dir); err != nil {
		return "", err
	}
	if posted, err := settled(dir, m); err != nil || posted {
		return m.ID, err
	}
	path := filepath.Join(dir, m.ID+".json")
	err = platform.PublishExclusive(path, data)
	if err == nil {
		return m.ID, nil
	}
	if !errors.Is(err, platform.ErrExist) {
		return "", fmt.Errorf("message %q: %w", m.ID, err)
	}
	prev, rerr := Read(path)
	if rerr != nil {
		return "", fmt.Errorf("message %q: id already used by a file that cannot be read: %w", m.ID, rerr)
	}
	if !prev.Equal(m) {
		return "", fmt.Errorf("message %q: id already used with different content", m.ID)
	}
	return m.ID, nil
}

// Posted reports whether m (defaults applied) was already posted from the
// outbox dir: its file in sent/ with the same content. As Write judges it:
// other content under its id in sent/, or its id in failed/, is an error.
func Posted(outbox string, m Message) (bool, error) { return settled(outbox, m) }

// checkOutbox refuses a missing outbox, and one that is not private
// (atomicfile.CheckPrivateDir, which only judges a directory that exists).
func checkOutbox(dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("outbox %s: %w", dir, err)
	}
	if err := atomicfile.CheckPrivateDir(dir); err != nil {
		return fmt.Errorf("outbox %s: %w", dir, err)
	}
	return nil
}

// settled reports whether m was already posted (its file in sent/, with
// the same content), and errs if its id is taken there by other content
// or by a file in failed/. A bus without those directories has neither.
func settled(outbox string, m Message) (posted bool, err error) {
	bus := filepath.Dir(filepath.Clean(outbox))
	failed := filepath.Join(bus, "failed", m.ID+".json")
	if _, err := os.Lstat(failed); err == nil {
		return false, fmt.Errorf("message %q: id already used by a failed message: %s", m.ID, failed)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("message %q: %w", m.ID, err)
	}
	sent := filepath.Join(bus, "sent", m.ID+".json")
	if _, err := os.Lstat(sent); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("message %q: %w", m.ID, err)
	}
	prev, err := Read(sent)
	if err != nil {
		return false, fmt.Errorf("message %q: id already used by a sent file that cannot be read: %w", m.ID, err)
	}
	if !prev.Equal(m) {
		return false, fmt.Errorf("message %q: id already used by a sent message with different content: %s", m.ID, sent)
	}
	return true, nil
}
