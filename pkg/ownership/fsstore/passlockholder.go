package fsstore

import (
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"

	"gjc.dev/reconciler/pkg/platform"
)

// PassLockHolder names the process holding agentDir's pass lock, as the
// kernel knows it (the kernel-held half of the lock, see passLock): held is
// false when no one holds it, and the PID is 0 when the kernel cannot say
// who does. It is for messages to a waiting operator: the holder may let go
// the moment after.
func PassLockHolder(agentDir string) (holder platform.NameHolder, held bool, err error) {
	return lockHolder(agentDir, agentdir.PassSuffix, "pass lock")
}

// lockHolder names the holder of one of agentDir's kernel-held locks, the
// one whose name key ends in suffix, under any of the dir's keys.
func lockHolder(agentDir, suffix, what string) (holder platform.NameHolder, held bool, err error) {
	keys, err := agentdir.Keys(agentDir, false)
	if err != nil {
		return holder, false, fmt.Errorf("%s: %w", what, err)
	}
	for _, k := range keys {
		h, ok, err := platform.NameLockHolder(k + suffix)
		switch {
		case err != nil:
			return holder, false, fmt.Errorf("%s holder: %w", what, err)
		case ok && h.PID > 0:
			return h, true, nil
		case ok:
			holder, held = h, true
		}
	}
	return holder, held, nil
}
