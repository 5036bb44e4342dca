package ownershiptest

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// A record may name a live process that is not this name's owner: one
// that reused the PID, one that is no daemon, another name's owner. Its
// owner is gone, so a stop of it succeeds, and that process is never
// signalled: a stop returns nil without touching it.

func stopUnrelatedProcess(t *testing.T, w World) {
	s := w.Store()
	b := w.StartBystander(t)
	w.WriteRecord(t, name, recordOf(s, b.PID(), b.Incarnation(), forgedOwnerID, desired))
	stopImpostor(t, s, b)
}

func stopReusedPID(t *testing.T, w World) {
	s := w.Store()
	b := w.StartBystander(t)
	w.WriteRecord(t, name, recordOf(s, b.PID(), b.StaleIncarnation(), forgedOwnerID, desired))
	stopImpostor(t, s, b)
}

func stopCopiedRecord(t *testing.T, w World) {
	s := w.Store()
	other := w.StartOwner(t, otherName, desired, OwnerOptions{})
	w.WriteRecord(t, name, other.Record())
	stopImpostor(t, s, other)
	expectVerdict(t, s, otherName, verdict{ownership.ClassCompatible, ownership.ReasonOwnerHealthy, true, false, ownership.HealthHealthy})
}

// stopImpostor stops name's owner as its record names it, and checks that
// the stop succeeded and p, the process the record names, saw nothing.
func stopImpostor(t *testing.T, s ownership.Store, p Process) {
	t.Helper()
	obs := s.Observe(name)
	if obs.Record.State == nil {
		t.Fatalf("Observe(%s) shows no record to decide on: %+v", name, obs.Record)
	}
	if err := s.Stop(stopCtx(t), name, &desired, *obs.Record.State, refusing(t)); err != nil {
		t.Errorf("Stop of a record naming pid %d, which is not its owner: %v; want nil (its owner is gone)", p.PID(), err)
	}
	p.AssertUntouched(t)
}
