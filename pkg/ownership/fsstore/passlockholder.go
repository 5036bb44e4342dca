package fsstore

import (
	"fmt"

	"gjc.dev/reconciler/pkg/platform"
)

// PassLockHolder names the process holding agentDir's pass lock, as the
// kernel knows it (the kernel-held half of the lock, see passLock): held is
// false when no one holds it, and the PID is 0 when the kernel cannot say
// who does. It is for messages to a waiting operator: the holder may let go
// the moment after.
func PassLockHolder(agentDir string) (holder platform.NameHolder, held bool, err error) {
	keys, err := agentDirKeys(agentDir, false)
	if err != nil {
		return holder, false, fmt.Errorf("pass lock: %w", err)
	}
	for _, k := range keys {
		h, ok, err := platform.NameLockHolder(k + "/.pass")
		switch {
		case err != nil:
			return holder, false, fmt.Errorf("pass lock holder: %w", err)
		case ok && h.PID > 0:
			return h, true, nil
		case ok:
			holder, held = h, true
		}
	}
	return holder, held, nil
}
