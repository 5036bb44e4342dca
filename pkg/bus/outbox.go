package bus

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// EnsureDirs creates the bus directories of d (Dir, then Outbox, Sent,
// Failed, Inbox), each 0700 with any missing parents, and refuses, with
// an error matching platform.ErrNotPrivate and nothing changed, one that
// is a symbolic link, not a directory, another uid's, or writable by
// group or others.
func EnsureDirs(d Dirs) error {
	for _, dir := range []struct{ name, path string }{
		{"bus", d.Dir}, {"outbox", d.Outbox}, {"sent", d.Sent}, {"failed", d.Failed}, {"inbox", d.Inbox}, {"files", d.Files},
	} {
		if dir.path == "" {
			return fmt.Errorf("bus dirs: no %s directory", dir.name)
		}
		if err := atomicfile.CheckPrivateDir(dir.path); err != nil {
			return fmt.Errorf("bus %s directory: %w", dir.name, err)
		}
	}
	return nil
}

// ListOutbox returns the names in the outbox dir that a consumer must
// judge, sorted: every one not starting with "." (those are producers'
// temp files, renamed into place once whole). Whatever they name (a
// regular file or not, .json or not) is for the consumer to decide.
func ListOutbox(dir string) ([]string, error) {
	names, err := visibleNames(dir)
	if err != nil {
		return nil, fmt.Errorf("list outbox: %w", err)
	}
	return names, nil
}

// visibleNames returns the names in dir not starting with ".", sorted.
func visibleNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	all, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	names := all[:0]
	for _, n := range all {
		if !IsTempName(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// checkEntryName refuses a name that is not one outbox entry's: empty,
// hidden (a temp file), or more than one path element.
func checkEntryName(name string) error {
	if name == "" || IsTempName(name) || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("outbox entry %q: not an entry name", name)
	}
	return nil
}

// euid is the consumer's uid, whose outbox files alone are read.
func euid() int { return os.Geteuid() }

var errNotRegular = errors.New("not a regular file")
