package reconcile

// holdLook is a live look (liveStatus's result) with the operator's hold
// as decide judged it (p, glance's plan), so a stop or start made without
// a loop shows at once rather than at the next pass: where decide says
// Held, the look says its Held. A Held the look found whose hold (held, as
// holds.json says it now; nil when the name is not held) is gone is not
// borne out: it is Stopped again and not converged, the next pass says
// what comes of it. Anything else is as liveStatus showed it: a held
// name whose owner decide would stop keeps the pass's report, not
// converged, with the owner's pid. Holds that cannot be read change
// nothing here (the pass refuses the name, HoldsUnreadable).
func holdLook(s DaemonStatus, held *Hold, p plan) DaemonStatus {
	switch {
	case p.step == stepHeld:
		s.Phase, s.Reason, s.Message, s.Converged = p.phase, p.reason, p.message, p.converged
	case held == nil && s.Phase == PhaseHeld:
		s.Phase, s.Reason, s.Message, s.Converged = PhaseStopped, "", "no longer held; the next pass starts it if the spec says Running", false
	default:
		return s
	}
	setReady(&s)
	return s
}
