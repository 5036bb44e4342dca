package reconcile

import (
	"context"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// waitReleasedExit waits, without signalling, for a process that released
// its record to exit. A PID that no longer proves the recorded incarnation
// has already exited.
func (r *Reconciler) waitReleasedExit(ctx context.Context, name string, s *ownership.State, d time.Duration) {
	ref, err := r.store.Reference(*s)
	if err != nil {
		return
	}
	defer ref.Close()
	r.progress(Progress{Name: name, Wait: WaitLastOwnerExit, PID: s.PID, Deadline: time.Now().Add(d)})
	defer r.progress(Progress{Name: name})
	waitExit(ctx, ref, d)
}

// waitExit waits on the owner's process reference itself, not on its record.
func waitExit(ctx context.Context, ref ownership.OwnerRef, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return ref.Wait(wctx) == nil
}
