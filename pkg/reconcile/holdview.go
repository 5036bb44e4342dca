package reconcile

// holdLook corrects a live look (liveStatus's result) by the operator's
// holds as holds.json says them now, so a stop or start made without a loop
// shows at once rather than at the next pass. A held name whose look shows
// a stopped phase is Held and converged, as decide's Held step says it; a
// Held the look found, whose hold is gone, is Stopped again and not
// converged. held is nil when the name is not held; holds that cannot be
// read change nothing here (the pass refuses the name, HoldsUnreadable).
//
// When is not decide's alone: decide says Held only with no live owner,
// where this also says it of a held name whose saved phase is stopped
// though the record now shows a proved owner alive (Held, converged, its
// pid shown). Triggering on decide's step would show that as not
// converged, which status does not do today.
func holdLook(s DaemonStatus, hold *Hold) DaemonStatus {
	switch {
	case hold != nil && (s.Phase == PhaseStopped || s.Phase == PhaseHeld):
		p := held(s.Name, *hold)
		s.Phase, s.Reason, s.Message, s.Converged = p.phase, p.reason, p.message, p.converged
	case hold == nil && s.Phase == PhaseHeld:
		s.Phase, s.Reason, s.Message, s.Converged = PhaseStopped, "", "no longer held; the next pass starts it if the spec says Running", false
	default:
		return s
	}
	setReady(&s)
	return s
}
