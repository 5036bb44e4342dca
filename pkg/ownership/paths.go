package ownership

import (
	"fmt"
	"path/filepath"
)

// File names inside a daemon's directory; the reference's names.
const (
	StateFile   = "state.json"
	LockFile    = "owner.lock"
	ReclaimFile = "owner.lock.reclaim"
	ControlFile = "control.json"
	// NameLockFile is the HeldError source for the kernel-held name lock.
	NameLockFile = "name lock"
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

// Levels returns the directories this package owns under the agent dir, top
// down: <agentDir>/sdk, .../sdk/daemons, .../sdk/daemons/<name>. It refuses
// Paths that PathsFor could not have made for a valid name, so a name like
// "../x" or a hand-made Paths can never point the contract elsewhere.
func (p Paths) Levels() ([3]string, error) {
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
