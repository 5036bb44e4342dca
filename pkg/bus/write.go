package bus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	if prev != m {
		return "", fmt.Errorf("message %q: id already used with different content", m.ID)
	}
	return m.ID, nil
}

// checkOutbox refuses a missing outbox, and one that is not private
// (platform.CheckPrivateDir, which only judges a directory that exists).
func checkOutbox(dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("outbox %s: %w", dir, err)
	}
	if err := platform.CheckPrivateDir(dir); err != nil {
		return fmt.Errorf("outbox %s: %w", dir, err)
	}
	return nil
}
