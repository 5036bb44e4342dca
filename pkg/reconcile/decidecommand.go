package reconcile

import (
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
)

// command is the operator's command a look is taken for; a pass's look
// has none.
type command int

const (
	noCommand command = iota
	commandStop
	commandRestart
)

func (c command) String() string {
	switch c {
	case commandStop:
		return "stop"
	case commandRestart:
		return "restart"
	}
	return ""
}

// commandLook is what an operator's command is judged on beyond the
// record: whether another machine leads the name (with the fleet's holds,
// that machine stops it; with holds of this machine alone, a stop of a
// proved owner is fenced by the store itself), how the spec wants it, and
// how valid the spec is as read here.
type commandLook struct {
	command command
	// ledElsewhere says why a stop here cannot stand for the owner ("":
	// it can); see ledElsewhere. leader is the other machine that leads
	// the name, when that could be read ("": none, or unknown).
	ledElsewhere, leader string
	// sharedHolds: the holds are the fleet's (Holds.Shared), so a hold
	// set here is honoured by the machine that leads the name.
	sharedHolds bool
	specStopped bool
	specErrors  int
}

// decideCommand is decide for an operator's command (stop, restart): the
// command is refused (stepDecline: nothing sent, nothing held) or allowed,
// and a stop holds the name (as hard as --force says, l.want) before
// anything is sent, and only then, so a refused stop holds nothing.
func decideCommand(l look) plan {
	verb := l.cmd.command.String()
	if l.cmd.command == commandRestart {
		if p, ok := restartRefused(l); ok {
			return p
		}
	}
	cls := l.cls
	switch {
	case cls.Class == ownership.ClassNewer:
		return decline(fmt.Sprintf("%s daemon is newer than this controller; upgrade this controller before %s", l.name, verb))
	case cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:
		return decline(fmt.Sprintf("%s daemon ownership changed; refusing to signal (%s)", l.name, cls.Message))
	}
	if l.cmd.command == commandRestart {
		if cls.Signalable {
			return plan{step: stepRestartStop, escalate: true}
		}
		return plan{step: stepRestartPass}
	}
	switch {
	case l.cmd.leader != "" && l.cmd.sharedHolds:
		// The hold is the fleet's: the leading machine's loop sees it at
		// once and stops its owner, as hard as this stop asks; only it may
		// (its election fences the stop).
		return plan{step: stepHoldLeader, escalate: l.want == stopKill,
			message: fmt.Sprintf("held stopped on every machine; machine %s, which leads %s, stops it", l.cmd.leader, l.name)}
	case cls.Signalable:
		return plan{step: stepHoldStop, escalate: l.want == stopKill}
	case l.cmd.ledElsewhere != "":
		// Nothing runs here, but the machine that leads it may start it
		// any moment: a hold kept only here would keep it down only once
		// that machine is gone, which is not what was asked; and who
		// leads it may not be known at all.
		return decline(fmt.Sprintf("%s not stopped: %s; run the stop there (nothing was sent, nothing is held)", l.name, l.cmd.ledElsewhere))
	}
	if t := l.tracked.owner; t != nil && l.tracked.alive && (l.rec.State == nil || l.rec.State.OwnerID != t.OwnerID) {
		// Alive without its record: nothing to fence a signal against.
		return plan{step: stepHold, message: fmt.Sprintf("%s: %s daemon (pid %d) still runs though its record is gone; it exits at its next heartbeat, or end it yourself",
			ReasonOwnerWithoutRecord, l.name, t.PID)}
	}
	return plan{step: stepHold, converged: true, message: fmt.Sprintf("no running %s daemon", l.name)}
}

// restartRefused refuses a restart of a name with nothing to restart it
// as, wanted stopped, or held stopped (a restart never lifts a hold).
func restartRefused(l look) (plan, bool) {
	switch {
	case !l.declared:
		return decline(notInSpec(l.name, "restart", l.cmd.specErrors)), true
	case l.cmd.specStopped:
		return decline(fmt.Sprintf("the spec says %s is Stopped; set state: Running to start it", l.name)), true
	case l.holdsErr != nil:
		return decline(fmt.Sprintf("%s not restarted: %v", l.name, l.holdsErr)), true
	case l.hold != nil:
		return decline(fmt.Sprintf("%s is held stopped by reconciler stop; run reconciler start %s", l.name, l.name)), true
	}
	return plan{}, false
}

// decline refuses an operator's command: nothing is sent and nothing is
// held; msg is its answer.
func decline(msg string) plan { return plan{step: stepDecline, message: msg} }

// notInSpec says that name has no object to act as; with the spec invalid
// as read here (specErrors errors: a shell without its fromEnv tokens,
// say), that may be why.
func notInSpec(name, verb string, specErrors int) string {
	msg := fmt.Sprintf("%s is not in the spec; nothing to %s it as", name, verb)
	if specErrors > 0 {
		msg += fmt.Sprintf(" (the spec is invalid as read here: %d error(s); run reconciler validate)", specErrors)
	}
	return msg
}

// ledElsewhere says why a stop here cannot stand for the name's owner
// ("" when it can): another machine leads its election, or who leads it
// cannot be read. A store without elections (one machine) has e nil.
func ledElsewhere(e *Election) string {
	switch {
	case e == nil || (e.Error == "" && (e.Leader == "" || e.Leader == e.Self)):
		return ""
	case e.Error != "":
		return "which machine leads it cannot be read: " + e.Error
	default:
		return fmt.Sprintf("machine %s leads it", e.Leader)
	}
}

// leaderElsewhere is the other machine that leads the name as e says, ""
// when this one does, none does, or who does cannot be read.
func leaderElsewhere(e *Election) string {
	if e == nil || e.Error != "" || e.Leader == e.Self {
		return ""
	}
	return e.Leader
}
