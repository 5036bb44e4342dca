package ownership

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gjc.dev/reconciler/pkg/platform"
)

// NameLockFile is the HeldError source for the kernel-held name lock.
const NameLockFile = "name lock"

// The name lock is the guard that no file operation can remove: each daemon
// takes the kernel-held lock of (agent dir, name) before it reads or writes
// anything of the contract, and the kernel drops it when the daemon exits.
// An `rm -rf` of sdk/, or a restored backup, removes every file that says a
// daemon runs, but not this; so a second daemon of one name can never
// start beside a live one, whatever the files say.

// nameLockKey names the lock of p's daemon: the agent dir by the hash of
// its real path (so two spellings of one dir share a lock) and the name.
// A daemon name is at most 63 bytes, so the key fits the kernel's 107.
func nameLockKey(p Paths) (string, error) {
	if _, err := p.levels(); err != nil {
		return "", err
	}
	dir, err := agentDirKey(p.AgentDir())
	if err != nil {
		return "", fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	return dir + "/" + p.Name(), nil
}

// PassLockKey names the kernel-held lock that serializes the reconciler
// passes over agentDir: the name locks' scheme, with a last element no
// daemon name can be (a DNS label never starts with a dot).
func PassLockKey(agentDir string) (string, error) {
	dir, err := agentDirKey(agentDir)
	if err != nil {
		return "", fmt.Errorf("pass lock: %w", err)
	}
	return dir + "/.pass", nil
}

func agentDirKey(agentDir string) (string, error) {
	dir, err := filepath.Abs(agentDir)
	if err != nil {
		return "", err
	}
	real, err := realPath(dir)
	if err != nil {
		return "", fmt.Errorf("agent dir: %w", err)
	}
	sum := sha256.Sum256([]byte(real))
	return "reconciler/" + hex.EncodeToString(sum[:12]), nil
}

// realPath resolves the links of dir's longest existing prefix: a daemon
// may create a missing agent dir, and the key must not change when it does.
func realPath(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return "", err
	}
	realParent, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(realParent, filepath.Base(dir)), nil
}

// takeNameLock takes p's name lock for this process, or returns the
// *HeldError naming the live holder (PID 0 if the kernel cannot say).
func takeNameLock(p Paths) (*platform.NameLock, error) {
	key, err := nameLockKey(p)
	if err != nil {
		return nil, err
	}
	l, err := platform.TakeNameLock(key)
	if held, ok := err.(*platform.NameHeldError); ok {
		return nil, &HeldError{PID: held.PID, Source: NameLockFile, Unproven: held.PID == 0}
	}
	if err != nil {
		return nil, fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	return l, nil
}

// NameLockHolder reports the live process holding p's name lock: a daemon
// of this name, found by the kernel, whatever its files say (pid 0 if the
// kernel could not name it). Nothing may be started for the name while one
// holds it.
func NameLockHolder(p Paths) (pid int, held bool, err error) {
	key, err := nameLockKey(p)
	if err != nil {
		return 0, false, err
	}
	return platform.NameLockHolder(key)
}
