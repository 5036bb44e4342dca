package ownership

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/platform"
)

// File names inside a daemon's directory; the reference's names.
const (
	StateFile   = "state.json"
	LockFile    = "owner.lock"
	ReclaimFile = "owner.lock.reclaim"
	ControlFile = "control.json"
)

// MaxRecordSize caps what is read from any file of the contract: records
// are a few hundred bytes, and a huge or endless file must not exhaust
// memory. A larger file is malformed.
const MaxRecordSize = 64 << 10

// Paths names the files of one daemon's ownership record.
type Paths struct{ Dir, State, Lock, Reclaim, Control string }

// PathsFor returns the paths for daemon name under agentDir:
// <agentDir>/sdk/daemons/<name>/{state.json,owner.lock,owner.lock.reclaim,control.json}.
// The name is the object's metadata.name; one that is not a single path
// element gives Paths that EnsureDir and every operation refuse.
func PathsFor(agentDir, name string) Paths {
	dir := filepath.Join(agentDir, "sdk", "daemons", name)
	return Paths{
		Dir:     dir,
		State:   filepath.Join(dir, StateFile),
		Lock:    filepath.Join(dir, LockFile),
		Reclaim: filepath.Join(dir, ReclaimFile),
		Control: filepath.Join(dir, ControlFile),
	}
}

// Name returns the daemon name, the last element of Dir.
func (p Paths) Name() string { return filepath.Base(p.Dir) }

// AgentDir returns the agent dir the paths are under: Dir less
// sdk/daemons/<name>.
func (p Paths) AgentDir() string {
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Clean(p.Dir))))
}

// levels returns the directories this package owns under the agent dir, top
// down: <agentDir>/sdk, .../sdk/daemons, .../sdk/daemons/<name>. It refuses
// Paths that PathsFor could not have made for a valid name, so a name like
// "../x" or a hand-made Paths can never point the contract elsewhere.
func (p Paths) levels() ([3]string, error) {
	dir := filepath.Clean(p.Dir)
	name := filepath.Base(dir)
	daemons := filepath.Dir(dir)
	sdk := filepath.Dir(daemons)
	switch {
	case p.Dir == "" || name == "." || name == ".." || name == string(filepath.Separator):
		return [3]string{}, fmt.Errorf("%w: %q has no daemon name", ErrBadPaths, p.Dir)
	case filepath.Base(daemons) != "daemons" || filepath.Base(sdk) != "sdk":
		return [3]string{}, fmt.Errorf("%w: %q is not <agentDir>/sdk/daemons/<name>", ErrBadPaths, p.Dir)
	case p != PathsFor(filepath.Dir(sdk), name):
		return [3]string{}, fmt.Errorf("%w: files of %q are not the contract's names", ErrBadPaths, p.Dir)
	}
	return [3]string{sdk, daemons, dir}, nil
}

// EnsureDir creates the daemon's directory and the levels above it under
// the agent dir (sdk, sdk/daemons), each mode 0700, and refuses any level
// that is a symbolic link, owned by another user, or writable by group or
// others (platform.ErrNotPrivate). The agent dir itself is the operator's
// choice and is not judged; a missing one is created 0700.
func EnsureDir(p Paths) error {
	levels, err := p.levels()
	if err != nil {
		return err
	}
	// Top down, so a swapped-in link at a higher level is refused before
	// anything is created through it.
	for _, dir := range levels {
		if err := platform.CheckPrivateDir(dir); err != nil {
			return fmt.Errorf("daemon directory %s: %w", p.Dir, err)
		}
	}
	return nil
}

// checkDir is EnsureDir for readers and for writers that must not create:
// it reports whether the daemon directory exists, and refuses a level that
// exists but is not private. A missing level means there is no record.
func checkDir(p Paths) (exists bool, err error) {
	levels, err := p.levels()
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
		if err := platform.CheckPrivateDir(dir); err != nil {
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
func readContractFile(p Paths, path string) (data []byte, exists bool, err error) {
	if _, err := p.levels(); err != nil {
		return nil, true, err
	}
	data, err = platform.ReadFileCapped(path, MaxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		// No file yet: absent, unless the directory itself is refused
		// (a link to an empty directory, say).
		if _, lerr := os.Lstat(p.Dir); lerr != nil {
			return nil, false, nil
		}
	}
	if derr := platform.CheckPrivateDir(p.Dir); derr != nil {
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
