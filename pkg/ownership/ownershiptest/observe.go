package ownershiptest

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// Observe reads only: each case that arranges a record naming a process
// also checks that looking at it sent that process nothing.

func observeAbsent(t *testing.T, w World) {
	obs := expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassAbsent, reason: ownership.ReasonNoOwner})
	if obs.Record.Present || obs.Record.State != nil {
		t.Fatalf("Observe of a name nobody owns found a record: %+v", obs.Record)
	}
}

func observeHealthyOwner(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decide(t, w.Store(), o)
	o.AssertUntouched(t)
}

// A released owner whose process still runs is stopped, but nothing may
// start over it until it exits.
func observeReleasedRunning(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	o.Release(t)
	expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonOwnerExiting, ambiguous: true})
	o.AssertUntouched(t)
}

func observeReleasedExited(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	o.Release(t)
	o.Crash(t)
	expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonOwnerReleased})
}

// An owner that died without releasing: its record stays, and says it is
// stopped.
func observeDeadOwner(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	o.Crash(t)
	expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonOwnerExited})
}

// A record whose PID now names another process (a proved different
// incarnation) is stopped, and that process is never the owner.
func observeReusedPID(t *testing.T, w World) {
	s := w.Store()
	b := w.StartBystander(t)
	w.WriteRecord(t, name, recordOf(s, b.PID(), b.StaleIncarnation(), forgedOwnerID, desired))
	expectVerdict(t, s, name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonPIDReused})
	b.AssertUntouched(t)
}

// A record naming a live process, its incarnation right, that is no
// daemon: as gone as a reused PID for this name.
func observeUnrelatedProcess(t *testing.T, w World) {
	s := w.Store()
	b := w.StartBystander(t)
	w.WriteRecord(t, name, recordOf(s, b.PID(), b.Incarnation(), forgedOwnerID, desired))
	expectVerdict(t, s, name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonNotThisDaemon})
	b.AssertUntouched(t)
}

// Another name's live owner's record copied here proves nothing here, and
// the other name's owner is still that name's.
func observeCopiedRecord(t *testing.T, w World) {
	s := w.Store()
	other := w.StartOwner(t, otherName, desired, OwnerOptions{})
	w.WriteRecord(t, name, other.Record())
	expectVerdict(t, s, name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonNotThisDaemon})
	expectVerdict(t, s, otherName, verdict{ownership.ClassCompatible, ownership.ReasonOwnerHealthy, true, false, ownership.HealthHealthy})
	other.AssertUntouched(t)
}

// A malformed record is refused as a whole: nothing about it is proved,
// and looking at it, or asking whether a spawn is blocked, changes
// nothing.
func observeMalformedTouchesNothing(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	w.CorruptRecord(t, name)
	before := w.Fingerprint(t, name)
	expectVerdict(t, s, name, verdict{class: ownership.ClassMalformed, reason: ownership.ReasonMalformedOwnerRecord, ambiguous: true})
	_ = s.SpawnBlocked(name)
	expectSame(t, w, name, before, "Observe and SpawnBlocked of a malformed record")
	o.AssertUntouched(t)
}

// When the owner's liveness cannot be established it is neither stopped
// nor signalable: live as far as anyone may assume, and untouchable.
func observeUnknownLiveness(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	w.HideLiveness(t, o)
	obs, c := observe(t, s, name, desired)
	switch {
	case c.Class == ownership.ClassStopped || c.Class == ownership.ClassAbsent:
		t.Fatalf("an owner of unknown liveness is %s (%s): it may still run", c.Class, c.Message)
	case c.Signalable || !c.AmbiguouslyLive:
		t.Fatalf("an owner of unknown liveness: signalable %t, ambiguously live %t; want false, true (%s)", c.Signalable, c.AmbiguouslyLive, c.Message)
	case c.Reason != ownership.ReasonOwnerUnverifiable:
		t.Errorf("reason %s, want %s (%s)", c.Reason, ownership.ReasonOwnerUnverifiable, c.Message)
	}
	if obs.Facts.Process.Err == nil {
		t.Errorf("the facts of an owner of unknown liveness carry no error saying why: %+v", obs.Facts.Process)
	}
	o.AssertUntouched(t)
}

// An owner whose record vanished: Observe sees nothing (what still holds
// the name is SpawnBlocked's and Reference's business).
func observeVanishedRecord(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	w.RemoveRecord(t, name)
	expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassAbsent, reason: ownership.ReasonNoOwner})
	o.AssertUntouched(t)
}
