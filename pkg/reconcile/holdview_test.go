package reconcile

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHoldLook(t *testing.T) {
	hold := &Hold{Since: metav1.NewTime(time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC))}
	for _, tc := range []struct {
		name      string
		in        DaemonStatus
		held      *Hold
		phase     Phase
		reason    string
		converged bool
	}{
		{"a stop made without a loop shows at once", DaemonStatus{Phase: PhaseStopped, Reason: "OwnerReleased"}, hold, PhaseHeld, ReasonOperatorStopped, true},
		{"held, as the pass said", DaemonStatus{Phase: PhaseHeld, Reason: ReasonOperatorStopped}, hold, PhaseHeld, ReasonOperatorStopped, true},
		{"a start made without a loop lets go at once", DaemonStatus{Phase: PhaseHeld, Reason: ReasonOperatorStopped, Converged: true}, nil, PhaseStopped, "", false},
		{"held but its owner still runs: not Held yet", DaemonStatus{Phase: PhaseRunning, PID: 42, Converged: true}, hold, PhaseRunning, "", true},
		// Not decide's Held (it would stop the owner): see holdLook.
		{"held, stopped before, a proved owner alive now: Held", DaemonStatus{Phase: PhaseStopped, PID: 42}, hold, PhaseHeld, ReasonOperatorStopped, true},
		{"held and refused stays refused", DaemonStatus{Phase: PhaseRefused, Reason: "MalformedRecord"}, hold, PhaseRefused, "MalformedRecord", false},
		{"not held, stopped: unchanged", DaemonStatus{Phase: PhaseStopped, Reason: "OwnerReleased"}, nil, PhaseStopped, "OwnerReleased", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Name = "discord"
			got := holdLook(tc.in, tc.held)
			if got.Phase != tc.phase || got.Reason != tc.reason || got.Converged != tc.converged {
				t.Errorf("got %s %q converged %v, want %s %q converged %v", got.Phase, got.Reason, got.Converged, tc.phase, tc.reason, tc.converged)
			}
			if got.Phase == PhaseHeld && meta.IsStatusConditionTrue(got.Conditions, ConditionReady) {
				t.Errorf("a held name shows Ready")
			}
		})
	}
}
