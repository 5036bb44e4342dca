package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// Reasons of a held name.
const (
	// ReasonOperatorStopped: `reconciler stop` holds the name stopped, like
	// systemctl stop, until `reconciler start`, whatever the spec says.
	ReasonOperatorStopped = "OperatorStopped"
	// ReasonHoldsUnreadable: the holds cannot be read (holds.json, or a
	// fleet's etcd), so whether an operator holds the name stopped is
	// unknown: nothing is started or stopped for it until they can be.
	ReasonHoldsUnreadable = "HoldsUnreadable"
	// ReasonStopTimedOut: a stop without --force holds the name, and its
	// daemon did not exit on the control request and SIGTERM within the
	// graceful timeout. It is left running: only stop --force sends
	// SIGKILL.
	ReasonStopTimedOut = "StopTimedOut"
)

// Hold is one name an operator stopped.
type Hold = ownership.Hold

// Holds keep the operator's holds where the ownership backend keeps its
// records: this machine's holds.json, or a fleet's etcd, where a stop on
// any machine holds the name on every machine. A hold is never leased nor
// guessed: one that cannot be read is an error, never "not held".
type Holds interface {
	// Holds is every held name.
	Holds() (map[string]Hold, error)
	// Hold is name's hold, nil when it is not held.
	Hold(name string) (*Hold, error)
	// SetHold holds name as h.Merged says (a name held already keeps its
	// Since and Machine) or, with h nil, lets it go; it reports whether
	// anything changed. What it cannot read it leaves as it is.
	SetHold(name string, h *Hold) (changed bool, err error)
	// Unhold lets go of name's hold only if no stop has held the name
	// since this process's last SetHold of it: a refused stop lifts the
	// hold it wrote, never one another stop relies on. It reports whether
	// it let go.
	Unhold(name string) (bool, error)
	// Shared: every machine of a fleet honours these holds, so a stop
	// anywhere holds the name where it runs.
	Shared() bool
}

// FileHolds are one machine's holds, in agentDir's holds.json.
func FileHolds(agentDir string) Holds { return fileHolds{agentDir: agentDir} }

// OperatorHolds are where o keeps the operator's holds: o.Holds, or this
// machine's holds.json when it names none.
func (o Options) OperatorHolds() Holds {
	if o.Holds != nil {
		return o.Holds
	}
	return FileHolds(o.AgentDir)
}

// setHold holds name stopped as h says (its Since and Machine are set
// here) or, with h nil, lets it go. The caller holds the pass lock, and
// rewrite serializes this process's commands, so no reconciler of this
// agent dir rewrites the holds meanwhile. It reports whether they changed.
func (r *Reconciler) setHold(name string, h *Hold) (bool, error) {
	r.rewrite.Lock()
	defer r.rewrite.Unlock()
	if h != nil {
		h = &Hold{Since: r.now().UTC().Truncate(time.Second), Force: h.Force, Machine: r.store.Machine()}
	}
	return r.holds.SetHold(name, h)
}

// unhold lets go of the hold this process's stop of name wrote, as
// Holds.Unhold says, serialized with setHold.
func (r *Reconciler) unhold(name string) (bool, error) {
	r.rewrite.Lock()
	defer r.rewrite.Unlock()
	return r.holds.Unhold(name)
}

// hasHold says whether name is held now; true when the holds cannot be
// read, so that nothing is lifted that may have been the operator's.
func (r *Reconciler) hasHold(name string) bool {
	h, err := r.holds.Hold(name)
	return err != nil || h != nil
}
