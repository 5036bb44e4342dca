package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
	"os"

	"gjc.dev/reconciler/pkg/platform"
)

// heldLock is a lock file as observed: its lease, for an exact unlink, and
// what it says.
type heldLock struct {
	lease platform.Lease
	lock  *ownership.OwnerLock
}

// errLockInFlux: the lock is being created or removed right now. Its
// creator links the finished file to the name and then drops the temp name,
// so for a moment it has two links; ExactUnlink renames it away and back.
// Such a lock is neither stale nor malformed: look again shortly.
var errLockInFlux = errors.New("lock is being created or removed")

// readLock captures the lease of the lock at path and parses it. A missing
// file wraps fs.ErrNotExist, a lock in flux errLockInFlux; a lock that does
// not parse is a *MalformedError naming path.
func readLock(path string) (heldLock, error) {
	lease, err := platform.CaptureLease(path)
	if err != nil {
		return heldLock{}, explainCaptureErr(path, err)
	}
	l, err := ownership.ParseOwnerLock(lease.Content)
	if err != nil {
		if me, ok := err.(*ownership.MalformedError); ok {
			me.Path = path
		}
		return heldLock{}, err
	}
	return heldLock{lease: lease, lock: l}, nil
}

// judgeLock decides whether the observed lock's creator is gone, with the
// reference's rule (staleChatDaemonLockLease): its PID is dead, or live with
// a recorded incarnation that has authority and is proved different now. A
// live PID with an unprovable or "unavailable" incarnation keeps the lock.
// It returns nil when the lock is stale, else the *HeldError naming the
// live holder. With a claim (owner.lock, which only a daemon of this name
// creates), a live creator that proves to be another process by its command
// line is gone too: a lock copied from another daemon's dir holds nothing.
func judgeLock(h heldLock, source string, probe Probe, claim *ownership.DaemonClaim) error {
	var f ownership.ProcessFacts
	if claim != nil {
		f = probeOwner(probe, h.lock.PID, h.lock.Incarnation, *claim)
	} else {
		f = probePID(probe, h.lock.PID, h.lock.Incarnation)
	}
	if f.Dead() {
		return nil
	}
	return &ownership.HeldError{
		PID:         h.lock.PID,
		Incarnation: h.lock.Incarnation,
		Source:      source,
		Unproven:    !f.Equal,
	}
}

// explainCaptureErr tells a lock in flux from one that cannot be trusted.
// CaptureLease calls a regular file unsafe only for its link count: two
// while its creator is between link(2) and dropping the temp name, zero
// once it was unlinked while being read. If the name is a regular file or
// gone when looked at again, the lock was changing hands. One that keeps
// two links keeps looking in flux, which fails closed.
// Anything else that is not a regular file (a symbolic link, a directory),
// or too large, is a malformed lock.
func explainCaptureErr(path string, err error) error {
	switch {
	case errors.Is(err, platform.ErrTooLarge):
		return &ownership.MalformedError{Path: path, Err: err}
	case !errors.Is(err, platform.ErrFileChanged) && !errors.Is(err, platform.ErrUnsafeFile):
		return fmt.Errorf("read lock: %w", err)
	}
	fi, lerr := os.Lstat(path)
	switch {
	case errors.Is(lerr, fs.ErrNotExist):
		return fmt.Errorf("read lock: %w", lerr)
	case lerr == nil && fi.Mode().IsRegular():
		return fmt.Errorf("%w: %v", errLockInFlux, err)
	case lerr == nil:
		return &ownership.MalformedError{Path: path, Err: err}
	}
	return fmt.Errorf("read lock: %w", err)
}

// lockClaim is who may hold owner.lock: any owner of this name's daemon.
// A reclaim lock has no claim: `reconciler gc` takes it too.
func lockClaim(p ownership.Paths) *ownership.DaemonClaim {
	c := ownership.ClaimOf(p, "")
	return &c
}
