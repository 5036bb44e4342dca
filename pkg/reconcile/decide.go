package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// step is what one look at a desired name calls for. decide chooses it
// from the look alone; the attempt carries it out (the I/O). A step that
// changes the world before it is done (waiting out a released owner) is
// followed by a fresh look and a fresh decision, never by acting on the
// old one.
type step int

const (
	stepWaitRelease  step = iota + 1 // a released owner is still exiting: wait for it, then look again; never signalled
	stepRefuse                       // touch nothing, and say why
	stepStop                         // desired stopped, a signalable owner runs: the fenced stop (SIGKILL only if plan.escalate)
	stepStopTimedOut                 // held by a stop without --force, and this owner outlasted its SIGTERM: left running, never signalled again
	stepEnsureGone                   // desired stopped, no owner to signal: converged once the last one is gone
	stepAhead                        // desired stopped, a newer generation owns it: report, never signal or downgrade
	stepReplace                      // stop the owner, then start the desired one (drifted, behind, hung)
	stepKeep                         // the owner is the desired one: attach (healthy, starting, reconnecting)
	stepAwaitChild                   // our own spawn has not published its record yet: wait for it, start no second
	stepStart                        // no owner: start one, once the last is gone and startGate allows
	stepAwaitTracked                 // startGate: an owner whose record vanished still runs: start no second
	stepBackOff                      // startGate: the crash loop says wait
	stepSpawn                        // startGate: spawn now
)

var stepNames = [...]string{"", "wait-release", "refuse", "stop", "stop-timed-out", "ensure-gone", "ahead", "replace", "keep", "await-child", "start", "await-tracked", "back-off", "spawn"}

func (s step) String() string {
	if s > 0 && int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "step?"
}

// plan is decide's answer. reason and message are set when the step
// reports them as they are (a refusal).
type plan struct {
	step            step
	reason, message string
	// exiting: a refusal over an owner that released but has not exited;
	// the loop watches for its exit.
	exiting bool
	// escalate: the stop may end in SIGKILL.
	escalate bool
}

// stopping is how a name is wanted: running, or stopped and how hard.
type stopping int

const (
	keepRunning stopping = iota
	// stopKill: the spec says Stopped, or stop --force holds it: the whole
	// ladder, SIGKILL after the graceful timeout.
	stopKill
	// stopTerm: held by a stop without --force: a control request and
	// SIGTERM, never SIGKILL.
	stopTerm
)

// stoppingOf is how a spec's state and an operator's hold (nil: none) want
// a name. The spec's Stopped is the spec's own stop, which escalates; a
// hold alone never sends a stronger signal than its stop asked for.
func stoppingOf(specStopped bool, hold *Hold) stopping {
	switch {
	case specStopped, hold != nil && hold.Force:
		return stopKill
	case hold != nil:
		return stopTerm
	}
	return keepRunning
}

// memory is what a decision needs of the reconciler's memory of a name.
type memory struct {
	// child is the ownerId of a daemon this reconciler spawned that is
	// still running, "" if none.
	child string
	// waitedRelease: this attempt already waited out a released owner.
	waitedRelease bool
	// termTimedOut is the ownerId of an owner that outlasted a stop
	// without --force (its control request and SIGTERM): a hold sends it
	// nothing more.
	termTimedOut string
}

// decide is the whole judgement of one look at a name that a spec
// declares: what to do about the owner cls judged, given whether (and how
// hard) it is wanted stopped and what the reconciler remembers. It does
// nothing itself. The order of the rules is the order of safety: an owner
// that cannot be proved is never acted on, whatever is desired.
func decide(rec ownership.Record, cls ownership.Classification, want stopping, mem memory) plan {
	switch {
	case cls.Reason == ownership.ReasonOwnerExiting && !mem.waitedRelease:
		return plan{step: stepWaitRelease}
	case cls.Reason == ownership.ReasonOwnerExiting:
		return plan{step: stepRefuse, reason: cls.Reason, message: cls.Message, exiting: true}
	case cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:
		return plan{step: stepRefuse, reason: cls.Reason, message: cls.Message}
	case want != keepRunning:
		switch {
		case cls.Class == ownership.ClassNewer:
			return plan{step: stepAhead}
		case cls.Signalable && want == stopTerm && rec.State != nil && rec.State.OwnerID == mem.termTimedOut:
			return plan{step: stepStopTimedOut, reason: ReasonStopTimedOut}
		case cls.Signalable:
			return plan{step: stepStop, escalate: want == stopKill}
		}
		return plan{step: stepEnsureGone}
	}
	switch cls.Class {
	case ownership.ClassAbsent, ownership.ClassStopped:
		if mem.child != "" && (rec.State == nil || rec.State.OwnerID != mem.child) {
			return plan{step: stepAwaitChild}
		}
		return plan{step: stepStart}
	case ownership.ClassDrifted, ownership.ClassReplaceable:
		return plan{step: stepReplace}
	case ownership.ClassCompatible, ownership.ClassNewer:
		if cls.Health != ownership.HealthHung {
			return plan{step: stepKeep}
		}
		if cls.Class == ownership.ClassNewer {
			return plan{step: stepRefuse, reason: ownership.ReasonGenerationAhead, message: "a newer generation owns it and is hung; it is never signalled"}
		}
		return plan{step: stepReplace}
	}
	return plan{step: stepRefuse, reason: cls.Reason, message: cls.Message}
}

// startGate decides a start where no record shows an owner: never beside
// the owner this reconciler holds a reference to whose record vanished
// (trackedRuns: it still runs after its wait), never over the service's final
// refusal of this very config (identity and generation), never before the
// crash loop's wait is over.
func startGate(rec ownership.Record, identity string, generation int64, crashWait time.Duration, trackedRuns bool) plan {
	if trackedRuns {
		return plan{step: stepAwaitTracked, reason: ReasonOwnerWithoutRecord}
	}
	if s := rec.State; terminal(s) && s.Identity == identity && s.Generation != nil && *s.Generation == generation {
		return plan{step: stepRefuse, reason: s.Terminated.Reason,
			message: "the service refused this daemon for good: " + s.Terminated.Message + "; not retried until the token or generation changes"}
	}
	if crashWait > 0 {
		return plan{step: stepBackOff, reason: ReasonCrashLoopBackOff}
	}
	return plan{step: stepSpawn}
}
