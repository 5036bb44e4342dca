package fsstore

import (
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
)

// SpawnObstacle reports what in p's lock files would make a new daemon's
// Acquire fail, so that the reconciler can say so and spawn nothing rather
// than start a daemon that can only exit and, exit after exit, end in a
// crash-loop back-off over something only an operator or time can fix:
//
//   - a *MalformedError for an owner.lock or owner.lock.reclaim that cannot
//     be trusted (unparseable, a symlink, not a regular file): an operator
//     must look at it;
//   - a *ReclaimBusyError while a live process holds owner.lock.reclaim: it
//     ends by itself;
//   - a *HeldError while owner.lock's creator lives and proves to be this
//     name's daemon (or cannot be proved another process).
//
// It returns nil when no lock is there or the one there is stale (its
// creator gone or proved another process), which Acquire reclaims. It
// reads only, and is advice: the daemon's Acquire decides.
func SpawnObstacle(p ownership.Paths, probe Probe) error {
	if exists, err := checkDir(p); err != nil || !exists {
		return err
	}
	// As Acquire goes: owner.lock first. Without one, Acquire creates it
	// and never looks at the reclaim lock.
	h, err := readLock(p.Lock)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errLockInFlux):
		// Free, or changing hands right now: Acquire waits that out.
		return nil
	case err != nil:
		return err
	}
	if err := judgeLock(h, ownership.LockFile, probe, lockClaim(p)); err != nil {
		return err
	}
	// A stale owner.lock: Acquire reclaims it under the reclaim lock.
	switch r, err := readLock(p.Reclaim); {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, errLockInFlux):
		return &ownership.ReclaimBusyError{}
	case err != nil:
		return err
	default:
		var held *ownership.HeldError
		if errors.As(judgeLock(r, ownership.ReclaimFile, probe, nil), &held) {
			return &ownership.ReclaimBusyError{PID: held.PID, Incarnation: held.Incarnation}
		}
		return nil
	}
}
