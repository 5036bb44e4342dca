package fsstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/platform"
)

// The name lock is the guard that no file operation can remove: each daemon
// takes the kernel-held locks of (agent dir, name) before it reads or writes
// any file of the contract, and the kernel drops them when the daemon
// exits. An `rm -rf` of sdk/, or a restored backup, removes every file that
// says a daemon runs, but not these; so a second daemon of one name can
// never start beside a live one, whatever the files say.
//
// There are three keys per name, and a taker needs all: from the agent
// dir's absolute path as written (a symlinked agent dir retargeted under a
// live daemon keeps it), from its real path (a dir removed and restored
// under a live daemon, reached through another link, keeps it), and from
// its device and inode (two spellings of one dir, or a dir moved under a
// live daemon, keep it). Adding a key only adds conflicts.

// agentDirKeys returns the key prefixes of agentDir: by its absolute path
// as written, by its real path (links resolved: a dir restored under a live
// daemon and reached through another link), and by its identity. With the
// dir missing there is no identity key: no daemon can have taken one for a
// dir that does not exist; a taker (needDir) must have all three.
func agentDirKeys(agentDir string, needDir bool) ([]string, error) {
	abs, err := filepath.Abs(agentDir)
	if err != nil {
		return nil, err
	}
	hash := func(kind, s string) string {
		sum := sha256.Sum256([]byte(s))
		return "reconciler/" + kind + hex.EncodeToString(sum[:12])
	}
	keys := []string{hash("p", abs)}
	real, err := realPath(abs)
	if err != nil {
		return nil, fmt.Errorf("agent dir: %w", err)
	}
	keys = append(keys, hash("r", real))
	id, err := platform.DirID(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !needDir:
		return keys, nil
	case err != nil:
		return nil, fmt.Errorf("agent dir: %w", err)
	}
	return append(keys, hash("i", id)), nil
}

// realPath resolves the links of dir's longest existing prefix, so the key
// of a missing dir is the one it will have once created.
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

// nameLockKeys names the locks of p's daemon. A daemon name is at most 63
// bytes, so each key fits the kernel's 107.
func nameLockKeys(p ownership.Paths, needDir bool) ([]string, error) {
	if _, err := p.Levels(); err != nil {
		return nil, err
	}
	keys, err := agentDirKeys(p.AgentDir(), needDir)
	if err != nil {
		return nil, fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	for i := range keys {
		keys[i] += "/" + p.Name()
	}
	return keys, nil
}

// PassLockKeys name the kernel-held locks that serialize the reconciler
// passes over agentDir: the name locks' scheme, with a last element no
// daemon name can be (a DNS label never starts with a dot).
func PassLockKeys(agentDir string) ([]string, error) {
	keys, err := agentDirKeys(agentDir, true)
	if err != nil {
		return nil, fmt.Errorf("pass lock: %w", err)
	}
	for i := range keys {
		keys[i] += passLockKey
	}
	return keys, nil
}

// takeNameLocks takes p's name locks for this process, creating a missing
// agent dir first (0700) so that its inode key exists, or returns the
// *HeldError naming the live holder (PID 0 if the kernel cannot say).
func takeNameLocks(p ownership.Paths) (platform.NameLocks, error) {
	if err := os.Mkdir(p.AgentDir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	keys, err := nameLockKeys(p, true)
	if err != nil {
		return nil, err
	}
	held, err := platform.TakeNameLocks(keys...)
	var h *platform.NameHeldError
	switch {
	case errors.As(err, &h):
		return nil, heldByName(h.Holder)
	case err != nil:
		return nil, fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	return held, nil
}

func heldByName(h platform.NameHolder) *ownership.HeldError {
	e := &ownership.HeldError{PID: h.PID, Source: ownership.NameLockFile, Unproven: h.PID == 0}
	if h.UID >= 0 && h.UID != os.Getuid() {
		e.OtherUser, e.OtherUID = true, h.UID
	}
	// SO_PEERCRED names a peer's user in any case, and its PID only when
	// the peer is in this process's PID namespace (or one below it).
	e.Unseen = h.PID == 0 && h.UID >= 0
	return e
}

// NameLockHolder returns the *HeldError naming the live process that holds
// one of p's name locks (a daemon of this name, found by the kernel,
// whatever its files say), or nil if none does. Nothing may be started for
// the name while one holds it.
func NameLockHolder(p ownership.Paths) (*ownership.HeldError, error) {
	keys, err := nameLockKeys(p, false)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		h, held, err := platform.NameLockHolder(key)
		if err != nil {
			return nil, err
		}
		if held {
			return heldByName(h), nil
		}
	}
	return nil, nil
}
