package reconcile

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
)

// The live look never shows what it cannot trust as Stopped or Ready,
// whatever the last pass saved, and recomputes Ready from what it shows.
func TestLiveStatusTrustsOnlyWhatItSees(t *testing.T) {
	owner := &ownership.State{PID: 4242, OwnerID: "o-1", Kind: "slack"}
	running := func() DaemonStatus {
		s := DaemonStatus{Name: "bot", Phase: PhaseRunning, Reason: ReasonReady, Converged: true, PID: 4242}
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady})
		return s
	}
	stopped := func() DaemonStatus {
		s := DaemonStatus{Name: "bot", Phase: PhaseStopped, Reason: ReasonStopped, Converged: true}
		// A stop's pass that left Ready as it was (the old operator stop).
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady})
		return s
	}
	held := func() DaemonStatus {
		s := DaemonStatus{Name: "bot", Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonOperatorStopped})
		return s
	}
	present := ownership.Record{Present: true, State: owner}
	malformed := ownership.Record{Present: true, Malformed: &ownership.MalformedError{Path: "state.json", Field: "pid"}}
	cases := []struct {
		name      string
		saved     DaemonStatus
		rec       ownership.Record
		cls       ownership.Classification
		tracked   bool
		phase     Phase
		reason    string
		ready     metav1.ConditionStatus
		converged bool
	}{
		{"malformed before any pass", DaemonStatus{Name: "bot"}, malformed,
			ownership.Classification{Class: ownership.ClassMalformed, AmbiguouslyLive: true, Reason: ownership.ReasonMalformedOwnerRecord},
			false, PhaseRefused, ownership.ReasonMalformedOwnerRecord, metav1.ConditionFalse, false},
		{"malformed since a healthy pass", running(), malformed,
			ownership.Classification{Class: ownership.ClassMalformed, AmbiguouslyLive: true, Reason: ownership.ReasonMalformedOwnerRecord},
			false, PhaseRefused, ownership.ReasonMalformedOwnerRecord, metav1.ConditionFalse, false},
		{"an owner that cannot be proved", running(), present,
			ownership.Classification{Class: ownership.ClassCompatible, AmbiguouslyLive: true, Reason: ownership.ReasonOwnerUnverifiable},
			false, PhaseRefused, ownership.ReasonOwnerUnverifiable, metav1.ConditionFalse, false},
		{"healthy, as the pass said", running(), present,
			ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy, Signalable: true, Reason: ownership.ReasonOwnerHealthy},
			false, PhaseRunning, ReasonReady, metav1.ConditionTrue, true},
		{"hung since a healthy pass", running(), present,
			ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHung, Signalable: true, Reason: ownership.ReasonOwnerHung},
			false, PhaseRunning, ownership.ReasonOwnerHung, metav1.ConditionFalse, false},
		{"exited since a healthy pass", running(), present,
			ownership.Classification{Class: ownership.ClassStopped, Reason: ownership.ReasonOwnerExited},
			false, PhaseStopped, ownership.ReasonOwnerExited, metav1.ConditionFalse, false},
		{"record gone since a healthy pass", running(), ownership.Record{},
			ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner},
			false, PhaseStopped, ownership.ReasonNoOwner, metav1.ConditionFalse, false},
		{"stopped: Ready is not left True", stopped(), ownership.Record{},
			ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner},
			false, PhaseStopped, ReasonStopped, metav1.ConditionFalse, true},
		// Held counts as converged (issue 12), in the loop's view as in status.json.
		{"held, its owner released", held(), ownership.Record{Present: true, State: owner},
			ownership.Classification{Class: ownership.ClassStopped, Reason: ownership.ReasonOwnerReleased},
			false, PhaseHeld, ReasonOperatorStopped, metav1.ConditionFalse, true},
		{"held, no record", held(), ownership.Record{},
			ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner},
			false, PhaseHeld, ReasonOperatorStopped, metav1.ConditionFalse, true},
		// A stop is not converged while a healthy owner runs after all.
		{"stopped, yet a healthy owner runs", stopped(), present,
			ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy, Signalable: true, Reason: ownership.ReasonOwnerHealthy},
			false, PhaseStopped, ReasonStopped, metav1.ConditionFalse, false},
		{"held, yet a healthy owner runs", held(), present,
			ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy, Signalable: true, Reason: ownership.ReasonOwnerHealthy},
			false, PhaseHeld, ReasonOperatorStopped, metav1.ConditionFalse, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := glanced(tc.saved, tc.rec, tc.cls, tc.tracked)
			ready := meta.FindStatusCondition(got.Conditions, ConditionReady)
			if got.Phase != tc.phase || got.Reason != tc.reason || got.Converged != tc.converged || ready == nil || ready.Status != tc.ready {
				t.Fatalf("liveStatus = %s %s converged=%v ready=%v; want %s %s converged=%v ready=%s",
					got.Phase, got.Reason, got.Converged, ready, tc.phase, tc.reason, tc.converged, tc.ready)
			}
		})
	}
}

// A name whose record is gone while the owner the last pass tracked still
// runs is refused, not Stopped: nothing may be started for it yet.
func TestLiveStatusTrackedOwnerWithoutRecord(t *testing.T) {
	saved := DaemonStatus{Name: "bot", Phase: PhaseRunning, Converged: true, TrackedOwner: &TrackedOwner{PID: 4242, OwnerID: "o-1"}}
	got := glanced(saved, ownership.Record{}, ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner}, true)
	if got.Phase != PhaseRefused || got.Reason != ReasonOwnerWithoutRecord || got.PID != 4242 {
		t.Fatalf("liveStatus = %s %s pid %d; want Refused OwnerWithoutRecord pid 4242", got.Phase, got.Reason, got.PID)
	}
}

// A name the spec declares whose owner runs before any pass has judged it
// (the loop's first pass waiting for it to be ready) is Starting, not
// Unmanaged: Unmanaged says another controller's.
func TestLiveStatusDeclaredNameBeforeAnyPass(t *testing.T) {
	rec := ownership.Record{Present: true, State: &ownership.State{PID: 4242, OwnerID: "o-1", Kind: "discord"}}
	for _, cls := range []ownership.Classification{
		{Class: ownership.ClassCompatible, Health: ownership.HealthStarting, Signalable: true, Reason: ownership.ReasonOwnerStarting},
		{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy, Signalable: true, Reason: ownership.ReasonOwnerHealthy},
	} {
		got := glanced(DaemonStatus{Name: "bot", DesiredState: "Running"}, rec, cls, false)
		if got.Phase != PhaseStarting || got.Converged || got.PID != 4242 || meta.IsStatusConditionTrue(got.Conditions, ConditionReady) {
			t.Errorf("%s: liveStatus = %s converged=%v pid %d; want Starting, not converged, pid 4242", cls.Reason, got.Phase, got.Converged, got.PID)
		}
	}
	if got := glanced(DaemonStatus{Name: "other"}, rec, ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy}, false); got.Phase != PhaseUnmanaged {
		t.Errorf("a name no spec declares: %s, want Unmanaged", got.Phase)
	}
}

// glanced is liveStatus as live calls it, for a name declared Running:
// with decide's plan for the look, effects off; tracked: the owner the
// last pass tracked (saved.TrackedOwner) still runs.
func glanced(saved DaemonStatus, rec ownership.Record, cls ownership.Classification, tracked bool) DaemonStatus {
	l := look{name: saved.Name, rec: rec, cls: cls, declared: true}
	if tracked {
		l.tracked = trackedLook{owner: &ownership.State{PID: saved.TrackedOwner.PID, OwnerID: saved.TrackedOwner.OwnerID}, checked: true, runs: true}
	}
	return liveStatus(saved, rec, cls, glance(l))
}

// The live look is decide with its effects off: every refusal decide
// makes from a look alone (no effect of a pass behind it), and a stop
// without --force that timed out, the look shows as decide says it,
// whatever the last pass saved.
func TestLiveLookRefusesAsDecideDoes(t *testing.T) {
	n := 0
	for _, tc := range decideCases() {
		l := tc.look
		effects := l.stopErr != nil || l.stopped || l.spawn != nil || l.ready != nil || l.replaced != "" || l.holdsErr != nil || l.pruned || l.pruneErr != nil
		if effects || !l.declared || (tc.step != stepRefuse && tc.step != stepAwaitTracked && tc.step != stepStopTimedOut) {
			continue
		}
		p := decide(with(l, func(l *look) { l.waitedRelease = true }))
		saved := DaemonStatus{Name: "bot", DesiredState: "Running", Phase: PhaseRunning, Reason: ReasonReady, Converged: true}
		got := liveStatus(saved, l.rec, l.cls, glance(l))
		if got.Phase != p.phase || got.Reason != p.reason || got.Message != p.message || got.Converged {
			t.Errorf("%s: the look shows %s %s %q converged=%v; decide says %s %s %q", tc.name, got.Phase, got.Reason, got.Message, got.Converged, p.phase, p.reason, p.message)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("only %d refusals compared", n)
	}
}
