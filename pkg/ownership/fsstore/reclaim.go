package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"io/fs"
	"os"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// errLockGone: the lock to reclaim vanished meanwhile; the name is free to
// try again.
var errLockGone = errors.New("owner lock vanished")

// Reclaim removes a stale owner.lock: one whose creator is gone (its PID
// dead, or reused as proved by the incarnation) while the record's owner is
// gone too. It works under owner.lock.reclaim, so reclaimers never race
// each other, re-checks everything once it holds it, and removes exactly
// the lock it judged (platform.ExactUnlink), so a delayed reclaimer can
// never delete a successor's lock. A reclaim lock left by a crashed
// reclaimer is recovered the same way; a live one is never stolen.
//
// It returns nil once the stale lock is gone (or there was none), a
// *HeldError when a live process holds the record or the lock, a
// *ReclaimBusyError, a *MalformedError for a record or lock that cannot be
// trusted, or ErrNoIncarnation when this process cannot prove its own.
func Reclaim(p ownership.Paths) error {
	exists, err := checkDir(p)
	if err != nil || !exists {
		return err
	}
	self, err := selfOf(defaultEnv())
	if err != nil {
		return err
	}
	err = reclaim(p, SystemProbe(), self, defaultEnv())
	if errors.Is(err, errLockGone) {
		return nil
	}
	return err
}

// self is the calling process as a lock names it.
type self struct {
	pid         int
	incarnation string
}

func selfOf(e env) (self, error) {
	pid := os.Getpid()
	inc, err := e.incarnation(pid)
	if err != nil {
		return self{}, fmt.Errorf("%w: pid %d: %w", ownership.ErrNoIncarnation, pid, err)
	}
	if !incarnation.Valid(inc) {
		return self{}, fmt.Errorf("%w: pid %d: %q has no authority", ownership.ErrNoIncarnation, pid, inc)
	}
	return self{pid: pid, incarnation: inc}, nil
}

func reclaim(p ownership.Paths, probe Probe, me self, e env) error {
	// Judge first without the reclaim lock: most contenders stop here, and
	// nothing is created for a lock that is not stale.
	if _, err := reclaimable(p, probe); err != nil {
		return err
	}
	rl, err := takeReclaimLock(p, probe, me, e)
	if err != nil {
		return err
	}
	// Ours to remove, and only ours: a successor's reclaim lock survives.
	// If this fails the file names us; it is stale once we exit.
	defer func() { _ = exactUnlinkIfOurs(p.Reclaim, rl) }()
	if e.reclaimLocked != nil {
		e.reclaimLocked()
	}
	h, err := reclaimable(p, probe)
	if err != nil {
		return err
	}
	if e.beforeUnlink != nil {
		e.beforeUnlink(p.Lock)
	}
	// Still ours? A reclaimer that lost its reclaim lock to a stale-lock
	// recovery must not act on what it judged under it.
	if err := platform.VerifyLease(p.Reclaim, rl); err != nil {
		return &ownership.ReclaimBusyError{}
	}
	if err := exactUnlinkIfOurs(p.Lock, h.lease); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errLockGone
		}
		return fmt.Errorf("reclaim %s: %w", p.Lock, err)
	}
	return nil
}

// reclaimable returns the observed owner.lock if it may be reclaimed: the
// record allows a successor and the lock's creator is gone.
func reclaimable(p ownership.Paths, probe Probe) (heldLock, error) {
	if err := successorAllowed(p, ReadState(p), probe); err != nil {
		return heldLock{}, err
	}
	h, err := readLock(p.Lock)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return heldLock{}, errLockGone
	case err != nil:
		return heldLock{}, err
	}
	if err := judgeLock(h, ownership.LockFile, probe, lockClaim(p)); err != nil {
		return heldLock{}, err
	}
	return h, nil
}

// successorAllowed applies the reference's rule for taking over a record:
// only when its owner is proved gone. A live PID stays fenced unless its
// incarnation is proved different, even if the record says released: a
// successor waits for the exit. A malformed record allows nothing; the
// exact legacy record allows a successor once its PID is dead.
func successorAllowed(p ownership.Paths, rec ownership.Record, probe Probe) error {
	switch {
	case !rec.Present:
		return nil
	case rec.Legacy && rec.State != nil:
		if f := probePID(probe, rec.State.PID, rec.State.Incarnation); f.Alive {
			return &ownership.MalformedError{Path: p.State, Field: "incarnation",
				Err: fmt.Errorf("legacy %q record names live pid %d, which cannot be proved another process", ownership.LegacyIncarnation, rec.State.PID)}
		}
		return nil
	case rec.Malformed != nil:
		return rec.Malformed
	case rec.State == nil:
		return &ownership.MalformedError{Path: p.State, Err: errors.New("no record")}
	}
	s := rec.State
	f := probeOwner(probe, s.PID, s.Incarnation, ownership.ClaimOf(p, s.OwnerID))
	if f.Dead() {
		return nil // gone, or proved not this name's daemon (a copied record)
	}
	return &ownership.HeldError{
		PID: s.PID, OwnerID: s.OwnerID, Incarnation: s.Incarnation, Source: ownership.StateFile,
		Released: s.StoppedAt != nil && f.Equal,
		Unproven: !f.Equal,
	}
}

// takeReclaimLock creates owner.lock.reclaim naming this process. One left
// by a reclaimer that is gone is removed exactly and created anew; a live
// one is never stolen.
func takeReclaimLock(p ownership.Paths, probe Probe, me self, e env) (platform.Lease, error) {
	data := (&ownership.OwnerLock{PID: me.pid, Incarnation: me.incarnation, CreatedAt: e.now().UnixMilli()}).Marshal()
	for range 2 {
		lease, err := platform.CreateExclusive(p.Reclaim, data)
		if err == nil {
			return lease, nil
		}
		if !errors.Is(err, platform.ErrExist) {
			return platform.Lease{}, fmt.Errorf("reclaim lock: %w", err)
		}
		h, err := readLock(p.Reclaim)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // released meanwhile: try again
		case errors.Is(err, errLockInFlux):
			return platform.Lease{}, &ownership.ReclaimBusyError{} // another reclaimer is taking or dropping it
		case err != nil:
			return platform.Lease{}, fmt.Errorf("reclaim lock: %w", err)
		}
		var held *ownership.HeldError
		if err := judgeLock(h, ownership.ReclaimFile, probe, nil); errors.As(err, &held) {
			return platform.Lease{}, &ownership.ReclaimBusyError{PID: held.PID, Incarnation: held.Incarnation}
		}
		if e.beforeUnlink != nil {
			e.beforeUnlink(p.Reclaim)
		}
		if err := exactUnlinkIfOurs(p.Reclaim, h.lease); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// Replaced since judged: a new reclaimer holds it.
			return platform.Lease{}, &ownership.ReclaimBusyError{}
		}
	}
	return platform.Lease{}, &ownership.ReclaimBusyError{}
}

// exactUnlinkIfOurs removes path only while it is still the leased file.
// The check first keeps ExactUnlink from moving a successor's file aside
// even for a moment, in which a third party could take the name and leave
// the successor's file stranded in quarantine.
func exactUnlinkIfOurs(path string, lease platform.Lease) error {
	if err := platform.VerifyLease(path, lease); err != nil {
		return err
	}
	return platform.ExactUnlink(path, lease)
}

// env is what tests replace: how this process proves its incarnation, the
// clock, and pauses at the points where races matter.
type env struct {
	incarnation   func(pid int) (string, error)
	now           func() time.Time
	afterLink     func()            // Acquire: owner.lock linked, state.json not yet published
	reclaimLocked func()            // reclaim: reclaim lock held, not yet re-checked
	beforeUnlink  func(path string) // reclaim: a stale lock judged, not yet removed
	// reclaimWait bounds how long Acquire waits for another reclaimer,
	// which either frees the name or names the winner: long enough for a
	// loaded machine's fsyncs, short against a daemon's ready timeout.
	reclaimWait time.Duration
	// filesOnly: take no name lock, as a daemon of the reference system
	// does; the file fences must hold against it on their own.
	filesOnly bool
}

func defaultEnv() env {
	return env{incarnation: platform.Incarnation, now: time.Now, reclaimWait: time.Second}
}
