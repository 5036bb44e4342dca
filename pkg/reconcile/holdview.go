package reconcile

import (
	"fmt"
	"time"
)

// holdMessage is what a held name's status says, in a pass and in a look.
func holdMessage(name string, h Hold) string {
	return fmt.Sprintf("held stopped by reconciler stop since %s; reconciler start %s starts it", h.Since.UTC().Format(time.RFC3339), name)
}

// holdLook corrects a live look (liveStatus's result) by the operator's
// holds as holds.json says them now, so a stop or start made without a loop
// shows at once rather than at the next pass. A held name with no live owner
// is Held and converged, as a pass would say; a Held the look found, whose
// hold is gone, is Stopped again and not converged. held is nil when the
// name is not held; holds that cannot be read change nothing here (the
// pass refuses the name, HoldsUnreadable).
func holdLook(s DaemonStatus, held *Hold) DaemonStatus {
	switch {
	case held != nil && (s.Phase == PhaseStopped || s.Phase == PhaseHeld):
		s.Phase, s.Reason, s.Message, s.Converged = PhaseHeld, ReasonOperatorStopped, holdMessage(s.Name, *held), true
	case held == nil && s.Phase == PhaseHeld:
		s.Phase, s.Reason, s.Message, s.Converged = PhaseStopped, "", "no longer held; the next pass starts it if the spec says Running", false
	default:
		return s
	}
	setReady(&s)
	return s
}
