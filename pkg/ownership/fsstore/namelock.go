package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
	"io/fs"
	"os"

	"gjc.dev/reconciler/pkg/platform"
)

// nameLockKeys names the locks of p's daemon. A daemon name is at most 63
// bytes, so each key fits the kernel's 107.
func nameLockKeys(p ownership.Paths, needDir bool) ([]string, error) {
	if _, err := p.Levels(); err != nil {
		return nil, err
	}
	keys, err := agentdir.Keys(p.AgentDir(), needDir)
	if err != nil {
		return nil, fmt.Errorf("name lock of %s: %w", p.Name(), err)
	}
	for i := range keys {
		keys[i] += "/" + p.Name()
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
