package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// decideUndeclared judges a name no valid source declares: prune it if
// this reconciler spawned it (its inventory), once every source is valid;
// else report it and touch nothing.
func decideUndeclared(l look) plan {
	cls := l.cls
	switch {
	case !l.inInventory && offTable(l.removed, cls, l.tracked.alive):
		return plan{step: stepLeave, leaves: true}
	case !l.inInventory:
		return plan{step: stepUnmanaged, phase: PhaseUnmanaged, reason: ReasonUnmanaged, message: unmanagedMessage(l.removed), converged: true}
	case !l.specValid:
		return plan{step: stepPruneDeferred, phase: phaseOf(l.rec), reason: ReasonPruneDeferred, message: "not pruned while a spec source is invalid"}
	case l.pruneErr != nil:
		return plan{step: stepFailed, phase: PhaseStopped, reason: ReasonPruned, message: l.pruneErr.Error(), degraded: true, requeue: time.Second}
	case l.pruned:
		return plan{step: stepPruned, phase: PhaseStopped, reason: ReasonPruned, converged: true, leaves: true,
			message: "removed from the spec; stopped and proven gone, it leaves the inventory and the status (its dir and bus stay for reconciler gc)"}
	case l.stopErr != nil:
		return stopFailed(l)
	case cls.Class == ownership.ClassMalformed || cls.AmbiguouslyLive:
		return refusal(l, cls.Reason, cls.Message)
	case l.stopped:
		return plan{step: stepRemove}
	case cls.Signalable:
		return plan{step: stepStop, escalate: true}
	}
	// Pruned only once nothing of it runs.
	if p := ensureGone(l, ""); p.step != stepStopped {
		return p
	}
	return plan{step: stepRemove}
}

// phaseOf is the phase a record shows by itself: Running while its owner
// has not released it.
func phaseOf(rec ownership.Record) Phase {
	if rec.State != nil && rec.State.StoppedAt == nil {
		return PhaseRunning
	}
	return PhaseStopped
}
