package fsstore

import (
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
)

// Release ends this owner's ownership (daemon exit, after the transport is
// closed): it sets stoppedAt, transportHealthy false and terminated (nil
// for an ordinary exit) in state.json, then removes exactly the owner.lock
// this owner created. It acts only while Renew's checks pass: if the
// record or the lock is no longer this owner's, or its incarnation cannot
// be proved, it returns the *OwnershipLostError and touches nothing, so a
// successor's record and lock are never touched. A second call after
// success does nothing; one after a failed lock removal retries it.
//
// Whatever it returns, the name lock is dropped: this process no longer
// acts as the owner, and the files decide who may follow it.
func (o *Owner) Release(t *ownership.Terminated) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	defer o.name.Release()
	if o.released {
		return o.removeLock()
	}
	if err := o.checkHeld(); err != nil {
		return err
	}
	next := o.state.Clone()
	stopped := o.env.now().UnixMilli()
	next.StoppedAt = &stopped
	next.TransportHealthy = false
	next.TransportError, next.TransportReason = "", ""
	next.Terminated = nil
	if t != nil {
		next.Terminated = &ownership.Terminated{Reason: truncate(t.Reason, ownership.MaxDetail), Message: truncate(t.Message, ownership.MaxDetail)}
		if next.Terminated.Reason == "" {
			// The parser requires a reason: without one the record would
			// read back as malformed.
			next.Terminated.Reason = "Terminated"
		}
	}
	// The record first, the lock second (the reference's order): whoever
	// takes the freed lock finds the record released.
	if err := o.publish(next); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	o.released = true
	return o.removeLock()
}

// removeLock removes this owner's lock, exactly.
func (o *Owner) removeLock() error {
	if o.lockRemoved {
		return nil
	}
	if err := exactUnlinkIfOurs(o.paths.Lock, o.lease); err != nil {
		return fmt.Errorf("release: record released, lock %s not removed: %w", o.paths.Lock, err)
	}
	o.lockRemoved = true
	return nil
}
