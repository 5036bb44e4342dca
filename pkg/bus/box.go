package bus

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/platform"
)

// Box is a bus opened for its consumer: the bus directory, its outbox,
// sent/ and failed/, each held by a descriptor and judged by it as it was
// opened (not a symbolic link, the effective uid's, not writable by group
// or others). Entries are reached relative to those descriptors, never
// through a link, so a directory swapped for a link to somewhere others
// write is refused at the next OpenBox, not followed. Open one per look
// (a scan, a delivery) and Close it.
type Box struct {
	d                      Dirs
	bus, out, sent, failed *platform.Dir
	files                  *platform.Dir // opened when first needed (filesDir)
}

// OpenBox opens d's bus, outbox, sent/ and failed/ and judges each; a
// refusal matches platform.ErrNotPrivate, and nothing is created, moved
// or changed.
func OpenBox(d Dirs) (*Box, error) {
	b := &Box{d: d}
	var err error
	if b.bus, err = platform.OpenPrivateDir(d.Dir); err != nil {
		return nil, fmt.Errorf("bus directory: %w", err)
	}
	for _, sub := range []struct {
		name, path string
		to         **platform.Dir
	}{{"outbox", d.Outbox, &b.out}, {"sent", d.Sent, &b.sent}, {"failed", d.Failed, &b.failed}} {
		if *sub.to, err = b.openIn(sub.path); err != nil {
			b.Close()
			return nil, fmt.Errorf("bus %s directory: %w", sub.name, err)
		}
	}
	return b, nil
}

// openIn opens path relative to the bus descriptor when it is in the bus
// directory (as Paths makes it), so the bus cannot be swapped between.
func (b *Box) openIn(path string) (*platform.Dir, error) {
	if filepath.Dir(path) == filepath.Clean(b.d.Dir) {
		return b.bus.OpenPrivateDir(filepath.Base(path))
	}
	return platform.OpenPrivateDir(path)
}

// Close releases the descriptors.
func (b *Box) Close() {
	for _, d := range []*platform.Dir{b.files, b.failed, b.sent, b.out, b.bus} {
		if d != nil {
			_ = d.Close()
		}
	}
}

// List returns the outbox names a consumer must judge, sorted: every one
// not starting with "." (producers' temp files, renamed into place once
// whole). Whatever they name is for Take to judge.
func (b *Box) List() ([]string, error) {
	all, err := b.out.Names()
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	names := all[:0]
	for _, n := range all {
		if !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Take reads the outbox entry name as a message and says what the entry
// was (its modification time for Judge). It refuses a name that is not
// <id>.json, anything but a regular file of the effective uid (never
// opened: platform.ErrUnsafeFile), a file over MaxFileSize, one that does
// not decode, and one whose id is not its name's. A name gone meanwhile
// matches fs.ErrNotExist.
func (b *Box) Take(name string) (Message, platform.Entry, error) {
	if err := checkEntryName(name); err != nil {
		return Message{}, platform.Entry{}, err
	}
	id, ok := strings.CutSuffix(name, ".json")
	if !ok {
		e, err := b.out.Stat(name)
		if err != nil {
			return Message{}, e, err
		}
		return Message{}, e, errors.New("not a message file: its name must be <id>.json")
	}
	m, e, err := b.read(b.out, name)
	if err != nil {
		return Message{}, e, err
	}
	if m.ID != id {
		return Message{}, e, fmt.Errorf("its id %s differs from its file name", m.ID)
	}
	return m, e, nil
}

// Sent reads sent/name, the message posted under that name.
func (b *Box) Sent(name string) (Message, error) {
	if err := checkEntryName(name); err != nil {
		return Message{}, err
	}
	m, _, err := b.read(b.sent, name)
	return m, err
}

func (b *Box) read(dir *platform.Dir, name string) (Message, platform.Entry, error) {
	path := filepath.Join(dir.Path(), name)
	data, e, err := dir.ReadFile(name, MaxFileSize)
	if err != nil {
		return Message{}, e, fmt.Errorf("read %s: %w", path, err)
	}
	m, err := Decode(data)
	if err != nil {
		return Message{}, e, fmt.Errorf("read %s: %w", path, err)
	}
	return m, e, nil
}

// Stat says what the outbox entry name is, without following it: what a
// consumer compares to look again at an entry it left in place once that
// entry changed (another uid's file chowned to ours, a FIFO replaced).
func (b *Box) Stat(name string) (platform.Entry, error) {
	if err := checkEntryName(name); err != nil {
		return platform.Entry{}, err
	}
	return b.out.Stat(name)
}

// Has says whether the outbox still has an entry called name; true when
// that cannot be told.
func (b *Box) Has(name string) bool {
	_, err := b.out.Stat(name)
	return !errors.Is(err, fs.ErrNotExist)
}

// Remove removes the outbox entry name: a message handed on (the fleet's
// forwarder stored it in etcd, where a copy that comes back after a
// crash is found stored already).
func (b *Box) Remove(name string) error {
	if err := checkEntryName(name); err != nil {
		return err
	}
	return b.out.Remove(name)
}

// untrusted says why an outbox entry is never opened ("" when it may be):
// not a regular file, or not the effective uid's.
func untrusted(e platform.Entry) string {
	t := e.Type
	switch {
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	case !e.Regular():
		return fmt.Sprintf("not a regular file (mode %v)", t)
	case !e.Mine():
		return fmt.Sprintf("a file of uid %d, not the consumer's (uid %d)", e.UID, euid())
	}
	return ""
}
