package fsstore

import (
	"errors"

	"gjc.dev/reconciler/pkg/ownership"
)

// ControlChanged is nil (ownership.Claim): control.json is in the daemon's
// own directory, which the daemon watches already.
func (o *Owner) ControlChanged() <-chan struct{} { return nil }

// Close ends the claim as the process's exit would (ownership.Claim): the
// kernel's name locks are dropped and the claim counts as lost, so nothing
// more is written as the owner. The files stay as they are: a successor
// judges them, as after an exit.
func (o *Owner) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.name.Release()
	if o.lost == nil {
		o.lost = &ownership.OwnershipLostError{What: ownership.LockFile, Err: errors.New("closed")}
		close(o.lostCh) // once: lost is never unset
	}
	return nil
}
