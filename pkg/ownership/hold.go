package ownership

import "time"

// Hold is an operator's stop of one name (reconciler stop): the name is
// held stopped, whatever the spec says, until reconciler start. It is the
// operator's intent and outlives every reconciler and every machine; the
// backend that keeps the records keeps it too (holds.json on one machine,
// the fleet's etcd in a fleet, so that a stop anywhere holds everywhere).
type Hold struct {
	// Since is when the name was first held; a later stop keeps it.
	Since time.Time `json:"since"`
	// Force: the stop that holds it allowed SIGKILL (stop --force). A hold
	// never sends a stronger signal than its stop asked for: without it,
	// an owner that outlasts its control request and SIGTERM is left
	// running (StopTimedOut).
	Force bool `json:"force,omitempty"`
	// Machine is the fleet machine whose stop set the hold; empty on one
	// machine.
	Machine string `json:"machine,omitempty"`
}

// Merged is what holding a name already held as cur (nil: not held) by a
// stop asking h leaves: a new hold is h itself; a held name keeps its
// Since and Machine and takes the latest stop's Force. changed says
// whether that differs from cur.
func (h Hold) Merged(cur *Hold) (next Hold, changed bool) {
	if cur == nil {
		return h, true
	}
	next = *cur
	next.Force = h.Force
	return next, next.Force != cur.Force
}
