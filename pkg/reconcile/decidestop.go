package reconcile

import (
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// decideStop judges a name wanted stopped (by the spec or an operator's
// hold) whose owner is proved or absent.
func decideStop(l look) plan {
	cls := l.cls
	switch {
	case cls.Class == ownership.ClassNewer:
		return plan{step: stepAhead, phase: PhaseRunning, reason: ownership.ReasonGenerationAhead,
			message: "a newer generation owns it; it is never signalled or downgraded"}
	case cls.Signalable && l.want == stopTerm && l.rec.State != nil && l.rec.State.OwnerID == l.termTimedOut:
		return stopTimedOut(l)
	case cls.Signalable:
		return plan{step: stepStop, escalate: l.want == stopKill}
	}
	return ensureGone(l, "not running, as the spec says")
}

// ensureGone is stopped once nothing of the name runs: no tracked owner
// whose record vanished, and no occupant this reconciler cannot see (its
// record looks dead from here only). msg is what stopped says.
func ensureGone(l look, msg string) plan {
	switch {
	case l.needsTracked():
		return plan{step: stepWaitTracked}
	case l.trackedRunning():
		return awaitTracked(l) // not stopped while it still holds the connection
	case !l.probed:
		return plan{step: stepProbe}
	}
	if m := unseenOccupant(l.name, l.occupant); m != "" {
		return cannotExamine(m)
	}
	return stopped(l, msg)
}

// stopped is a name wanted stopped with nothing of it running: Held while
// an operator holds it, as systemctl stop would say.
func stopped(l look, msg string) plan {
	if l.hold != nil {
		return held(l.name, *l.hold)
	}
	return plan{step: stepStopped, phase: PhaseStopped, reason: ReasonStopped, message: msg, converged: true}
}

// held is the report of a name an operator holds stopped (h) with nothing
// of it running, in a pass and in a live look (holdLook shows it).
func held(name string, h Hold) plan {
	return plan{step: stepHeld, phase: PhaseHeld, reason: ReasonOperatorStopped, message: holdMessage(name, h), converged: true}
}

// holdMessage is what a held name's status says; in a fleet, which
// machine's stop held it, as every machine shows it.
func holdMessage(name string, h Hold) string {
	by := "reconciler stop"
	if h.Machine != "" {
		by += " on machine " + h.Machine
	}
	return fmt.Sprintf("held stopped by %s since %s; reconciler start %s starts it", by, h.Since.UTC().Format(time.RFC3339), name)
}

// stopTimedOut reports an owner that outlasted a stop without --force: it
// is left running, never sent SIGKILL nor another SIGTERM by this
// reconciler, and watched, so its exit is seen.
func stopTimedOut(l look) plan {
	s := l.rec.State
	return plan{step: stepStopTimedOut, phase: PhaseRunning, reason: ReasonStopTimedOut,
		message: stopTimedOutMessage(l.name, s.PID), degraded: true, watch: s}
}

// stopTimedOutMessage says what is left of a stop without --force that
// timed out, for the status and the command's answer alike.
func stopTimedOutMessage(name string, pid int) string {
	return fmt.Sprintf("held stopped by reconciler stop without --force, and pid %d did not exit on its control request and SIGTERM; it is left running: reconciler stop --force %s ends it", pid, name)
}

// stopFailed reports a stop that did not prove the owner gone: nothing
// may be spawned, and a process in uninterruptible sleep may yet die.
func stopFailed(l look) plan {
	err := l.stopErr
	switch {
	case errors.Is(err, ownership.ErrDidNotExit):
		return stopTimedOut(l)
	case ledElsewhereBy(err) != nil:
		return standBy(l.name, ledElsewhereBy(err))
	}
	reason := ReasonNotProvenDead
	if !errors.Is(err, ownership.ErrNotProvenDead) {
		reason = ReasonStopFailed
	}
	p := refusal(look{}, reason, err.Error())
	p.requeue = 5 * time.Second
	return p
}

// awaitTracked refuses the name while the owner tracked for it runs on
// without its record; the loop wakes on its exit. It is never signalled:
// with no record there is nothing to fence a signal against.
func awaitTracked(l look) plan {
	t := l.tracked.owner
	return plan{step: stepAwaitTracked, phase: PhaseRefused, reason: ReasonOwnerWithoutRecord, degraded: true,
		message: fmt.Sprintf("the last owner (pid %d, ownerId %s) still runs though its record is gone; no second owner is started until it exits",
			t.PID, t.OwnerID),
		watch: t, requeue: l.graceful} // the loop's exit watch is sooner
}

// cannotExamine refuses the name as unseen: the pass that found it leaves
// status.json and the event log to a reconciler that can see the daemons.
func cannotExamine(msg string) plan {
	return plan{step: stepCannotExamine, phase: PhaseRefused, reason: ReasonCannotExamine, message: msg,
		degraded: true, unseen: true, requeue: time.Second}
}

// ledElsewhereBy is the fleet's verdict in err that another machine leads
// the name, nil when err says no such thing.
func ledElsewhereBy(err error) *ownership.LedElsewhereError {
	var led *ownership.LedElsewhereError
	if errors.As(err, &led) {
		return led
	}
	return nil
}

// standBy is a name another machine of a fleet leads: spawning and
// stopping it are that machine's, and this one waits, Starting, not
// Degraded, woken when the election changes.
func standBy(name string, led *ownership.LedElsewhereError) plan {
	msg := fmt.Sprintf("machine %q leads %s: it spawns and stops the daemon; this machine stands by", led.Leader, name)
	if led.Leader == "" {
		msg = fmt.Sprintf("no machine leads %s yet; this machine stands for it", name)
	}
	return plan{step: stepStandBy, phase: PhaseStarting, reason: ownership.ReasonLedElsewhere, message: msg, requeue: 5 * time.Second}
}

// holdsUnknown refuses a name whose hold cannot be read: a fleet's store
// that does not answer is said as such (the store's reason), anything
// else (holds.json, a key that is not a hold) is HoldsUnreadable.
func holdsUnknown(l look) plan {
	if errors.Is(l.holdsErr, ownership.ErrStoreUnreachable) {
		return refusal(l, ownership.ReasonStoreUnreachable, l.holdsErr.Error()+"; whether an operator holds it stopped is unknown: nothing is started or stopped until it answers")
	}
	return refusal(l, ReasonHoldsUnreadable, l.holdsErr.Error()+"; nothing is started or stopped until it is fixed")
}
