package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
)

// EnsureDir creates the daemon's directory and the levels above it, each
// private (see agentdir.EnsureDir): what the daemon and the stores need
// before a record is written.
func EnsureDir(p ownership.Paths) error { return agentdir.EnsureDir(p) }

// checkDir is EnsureDir for readers and for writers that must not create:
// it reports whether the daemon directory exists, and refuses a level that
// exists but is not private. A missing level means there is no record.
func checkDir(p ownership.Paths) (exists bool, err error) {
	levels, err := p.Levels()
	if err != nil {
		return false, err
	}
	for _, dir := range levels {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("daemon directory %s: %w", p.Dir, err)
		}
		// It exists, so CheckPrivateDir only judges it.
		if err := agentdir.CheckPrivate(dir); err != nil {
			return false, fmt.Errorf("daemon directory %s: %w", p.Dir, err)
		}
	}
	return true, nil
}

// readContractFile reads one file of the daemon's directory: without
// following a final symbolic link, capped at MaxRecordSize, and only from a
// daemon directory that is private (DESIGN: not a symbolic link, ours, not
// group or world writable). It is the path every observation of every
// daemon takes, so it judges that directory alone, with one lstat: the
// levels above it are judged by everything that writes, removes or signals
// (EnsureDir, checkDir), and are private as long as only we create them.
// The file is read first and the directory judged after: when the file
// exists so does the directory, and CheckPrivateDir only judges it (had it
// vanished meanwhile, it would be recreated empty and private, which is
// harmless).
func readContractFile(p ownership.Paths, path string) (data []byte, exists bool, err error) {
	if _, err := p.Levels(); err != nil {
		return nil, true, err
	}
	data, err = atomicfile.ReadCapped(path, ownership.MaxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		// No file yet: absent, unless the directory itself is refused
		// (a link to an empty directory, say).
		if _, lerr := os.Lstat(p.Dir); lerr != nil {
			return nil, false, nil
		}
	}
	if derr := agentdir.CheckPrivate(p.Dir); derr != nil {
		return nil, true, fmt.Errorf("daemon directory %s: %w", p.Dir, derr)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, true, err
	}
	return data, true, nil
}
