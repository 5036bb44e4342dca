package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// step is what one look at a name calls for. decide chooses it from the
// look alone. A step with an effect (a wait, a probe, a stop, a spawn) is
// carried out by the attempt, which then looks again (what the effect
// learned is part of the next look) and asks decide again; a step without
// one ends the attempt with the plan's report. The attempt writes no
// phase or reason of its own: every report is decide's.
type step int

const (
	// Effects: carried out, then the name is looked at again.
	stepWaitRelease   step = iota + 1 // a released owner is still exiting: wait for it, never signalled
	stepWaitTracked                   // wait (once per owner) for the tracked owner whose record is gone to exit
	stepProbe                         // ask the store whether another process occupies the name
	stepNoteExit                      // the owner believed to run is gone: count the exit (crash or release)
	stepStop                          // the fenced stop (SIGKILL only if plan.escalate)
	stepReplace                       // the fenced stop, then a spawn (or the successor the owner handed over to)
	stepSpawn                         // spawn and wait for the new owner to be healthy
	stepAwaitChild                    // our own spawn has not published its record yet: wait for it, start no second
	stepAwaitStarting                 // the owner is starting: wait for it to be healthy
	stepRemove                        // a pruned name proven gone leaves the inventory

	// Reports: the attempt ends with them.
	stepRefuse        // touch nothing, and say why
	stepAwaitTracked  // the tracked owner still runs though its record is gone: start no second
	stepCannotExamine // the name's occupant is outside this reconciler's sight
	stepStandBy       // another machine of a fleet leads the name
	stepStopTimedOut  // a hold without --force, and this owner outlasted its SIGTERM: left running, never signalled again
	stepStopped       // wanted stopped, and nothing runs
	stepHeld          // held stopped by an operator, and nothing runs
	stepAhead         // wanted stopped, a newer generation owns it: never signalled or downgraded
	stepKeep          // the owner is the desired one and healthy: attach
	stepReconnect     // the owner is the desired one, its transport down: it reconnects on its own
	stepNotReady      // a new or starting owner is not healthy yet
	stepBackOff       // the crash loop says wait
	stepFailed        // an action failed: look again soon
	stepUnmanaged     // not declared, not this reconciler's: left alone
	stepLeave         // pruned before, nothing of it runs: out of the status
	stepPruneDeferred // not declared, but a spec source is invalid: pruned later
	stepPruned        // not declared, stopped and proven gone: out of the inventory and the status

	// An operator's command's answers (decideCommand, decidecommand.go):
	// the command carries them out and says its message; no status is
	// reported.
	stepDecline     // the command is refused: nothing sent, nothing held
	stepHold        // stop: nothing here to signal: hold the name
	stepHoldStop    // stop: hold the name, then the fenced stop (SIGKILL only if plan.escalate)
	stepHoldLeader  // stop: hold the name fleet-wide; the machine that leads it stops its owner
	stepRestartStop // restart: the fenced stop, SIGKILL after the graceful timeout, then a pass
	stepRestartPass // restart: nothing to stop: a pass now
)

var stepNames = [...]string{"", "wait-release", "wait-tracked", "probe", "note-exit", "stop", "replace", "spawn",
	"await-child", "await-starting", "remove", "refuse", "await-tracked", "cannot-examine", "stand-by",
	"stop-timed-out", "stopped", "held", "ahead", "keep", "reconnect", "not-ready", "back-off", "failed",
	"unmanaged", "leave", "prune-deferred", "pruned",
	"decline", "hold", "hold-stop", "hold-leader", "restart-stop", "restart-pass"}

func (s step) String() string {
	if s > 0 && int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "step?"
}

// effect reports whether the attempt carries the step out and looks again.
func (s step) effect() bool { return s < stepRefuse }

// commandStep reports whether the step answers an operator's command.
func (s step) commandStep() bool { return s >= stepDecline }

// plan is decide's answer: a step and, for a report, the status it ends
// with.
type plan struct {
	step            step
	phase           Phase
	reason, message string
	converged       bool
	degraded        bool
	requeue         time.Duration
	// watch is the live owner the loop watches for its exit (and keeps a
	// reference to); nil leaves the one an earlier step named.
	watch *ownership.State
	// escalate: the stop may end in SIGKILL.
	escalate bool
	// expectNone: the name is wanted stopped, so no owner is expected to
	// run (a later stopped record is no crash).
	expectNone bool
	// unseen: the report is this reconciler's blindness, not the
	// daemon's state; leaves: the name is out of the status from now on.
	unseen, leaves bool
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

// decide is the whole judgement of one look at a name. It does nothing
// itself. What this attempt's own effects found is judged first (the
// report is about what was done); then the safety rules, in the order of
// safety: an owner that cannot be proved is never acted on, whatever is
// desired; then what is desired.
func decide(l look) plan {
	if l.cmd.command != noCommand {
		return decideCommand(l)
	}
	if !l.declared {
		return decideUndeclared(l)
	}
	if l.holdsErr != nil {
		// Whether an operator stopped it is unknown: touch nothing.
		return holdsUnknown(l)
	}
	if p, ok := afterEffects(l); ok {
		return p
	}
	if p, ok := safety(l); ok {
		return p
	}
	if l.want != keepRunning {
		p := decideStop(l)
		p.expectNone = true
		return p
	}
	return decideRun(l)
}

// safety refuses what must not be acted on: an owner that released but
// has not exited (waited for once), a record that is malformed or
// another's, an owner that is alive but not proved.
func safety(l look) (plan, bool) {
	cls := l.cls
	switch {
	case cls.Reason == ownership.ReasonOwnerExiting && !l.waitedRelease:
		return plan{step: stepWaitRelease}, true
	case cls.Reason == ownership.ReasonOwnerExiting:
		// Its exit is what the loop waits for.
		return plan{step: stepRefuse, phase: PhaseRefused, reason: cls.Reason, message: cls.Message, degraded: true,
			watch: l.rec.State, requeue: time.Second}, true
	case cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:
		return refusal(l, cls.Reason, cls.Message), true
	}
	return plan{}, false
}

// refusal touches nothing and says why. A proved owner refused (a hung
// newer one) is still the live owner: the loop watches its exit and keeps
// a reference to it.
func refusal(l look, reason, msg string) plan {
	p := plan{step: stepRefuse, phase: PhaseRefused, reason: reason, message: msg, degraded: true}
	if l.cls.Signalable {
		p.watch = l.rec.State
	}
	if reason == ownership.ReasonStoreUnreachable {
		// Nothing changes that a watch could see when a cluster answers
		// again, and a held or stopped name has no heartbeat to wake it:
		// looked at again soon, not at the resync. A look at a silent
		// cluster costs one request timeout at most.
		p.requeue = unreachableRetry
	}
	return p
}

// unreachableRetry is how soon a name refused for an ownership store that
// did not answer is looked at again.
const unreachableRetry = 2 * time.Second

// afterEffects judges what this attempt's own effects found, newest
// first: a wait for a new owner, a spawn that never got to one, a
// replaced owner proven gone, a stop.
func afterEffects(l look) (plan, bool) {
	switch {
	case l.ready != nil:
		return afterWait(l), true
	case l.spawn != nil:
		return spawnRefused(l, l.spawn), true
	case l.stopErr != nil:
		return stopFailed(l), true
	case l.replaced != "":
		return afterReplace(l), true
	case l.stopped:
		return stopped(l, "stopped as the spec says"), true
	}
	return plan{}, false
}
