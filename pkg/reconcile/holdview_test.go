package reconcile

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"gjc.dev/reconciler/pkg/ownership"
)

// The live look of a name declared Running, held or not, shows the hold as
// decide judges it: Held where decide says Held, and no Held of its own.
func TestHoldLook(t *testing.T) {
	hold := &Hold{Since: time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)}
	owner := ownership.Record{Present: true, State: &ownership.State{PID: 42, OwnerID: "o-1"}}
	alive := proved(ownership.ClassCompatible, ownership.HealthHealthy)
	none := ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner}
	malformed := ownership.Classification{Class: ownership.ClassMalformed, Reason: ownership.ReasonMalformedOwnerRecord, AmbiguouslyLive: true}
	for _, tc := range []struct {
		name      string
		in        DaemonStatus
		rec       ownership.Record
		cls       ownership.Classification
		held      *Hold
		phase     Phase
		reason    string
		pid       int
		converged bool
	}{
		{"a stop made without a loop shows at once", DaemonStatus{Phase: PhaseStopped, Reason: "OwnerReleased"}, ownership.Record{}, none, hold, PhaseHeld, ReasonOperatorStopped, 0, true},
		{"held, as the pass said", DaemonStatus{Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}, ownership.Record{}, none, hold, PhaseHeld, ReasonOperatorStopped, 0, true},
		{"held, a stale refusal, nothing runs now: Held, as decide says", DaemonStatus{Phase: PhaseRefused, Reason: ownership.ReasonMalformedOwnerRecord}, ownership.Record{}, none, hold, PhaseHeld, ReasonOperatorStopped, 0, true},
		{"a start made without a loop lets go at once", DaemonStatus{Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}, ownership.Record{}, none, nil, PhaseStopped, "", 0, false},
		{"held but its owner still runs: not Held yet", DaemonStatus{Phase: PhaseRunning, Reason: ReasonReady, PID: 42, Converged: true}, owner, alive, hold, PhaseRunning, ReasonReady, 42, true},
		// decide stops the owner: the pass's report, not converged, its pid shown.
		{"held, stopped before, a proved owner alive now: not converged", DaemonStatus{Phase: PhaseStopped, Reason: ReasonStopped, Converged: true}, owner, alive, hold, PhaseStopped, ReasonStopped, 42, false},
		{"held, held before, a proved owner alive now: not converged", DaemonStatus{Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}, owner, alive, hold, PhaseHeld, ReasonOperatorStopped, 42, false},
		{"held and refused stays refused", DaemonStatus{Phase: PhaseRefused, Reason: ownership.ReasonMalformedOwnerRecord}, ownership.Record{Present: true}, malformed, hold, PhaseRefused, ownership.ReasonMalformedOwnerRecord, 0, false},
		{"not held, stopped: unchanged", DaemonStatus{Phase: PhaseStopped, Reason: "OwnerReleased"}, ownership.Record{}, none, nil, PhaseStopped, "OwnerReleased", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Name, tc.in.DesiredState = "discord", "Running"
			l := look{name: "discord", rec: tc.rec, cls: tc.cls, declared: true, hold: tc.held, want: stoppingOf(false, tc.held)}
			got := looked(tc.in, l)
			if got.Phase != tc.phase || got.Reason != tc.reason || got.PID != tc.pid || got.Converged != tc.converged {
				t.Errorf("got %s %q pid %d converged %v, want %s %q pid %d converged %v",
					got.Phase, got.Reason, got.PID, got.Converged, tc.phase, tc.reason, tc.pid, tc.converged)
			}
			if got.Phase == PhaseHeld && meta.IsStatusConditionTrue(got.Conditions, ConditionReady) {
				t.Errorf("a held name shows Ready")
			}
		})
	}
}

// Holds that cannot be read make the live look say so, never that a held
// name is "no longer held" (which a failed listing would otherwise read as).
func TestHoldLookOfUnreadableHolds(t *testing.T) {
	none := ownership.Classification{Class: ownership.ClassAbsent, Reason: ownership.ReasonNoOwner}
	in := DaemonStatus{Name: "discord", DesiredState: "Running", Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}
	l := look{name: "discord", cls: none, declared: true, holdsErr: errors.New("holds.json is not valid JSON"), want: stoppingOf(false, nil)}
	got := looked(in, l)
	if got.Phase != PhaseRefused || got.Reason != ReasonHoldsUnreadable || !strings.Contains(got.Message, "holds.json is not valid JSON") || got.Converged {
		t.Errorf("with the holds unreadable: %s %q (%s) converged %v", got.Phase, got.Reason, got.Message, got.Converged)
	}
}
