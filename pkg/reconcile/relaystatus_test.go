package reconcile

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// withRelay rewrites name's record, as its owner's next heartbeat would,
// with the relay's health r.
func withRelay(t *testing.T, w *fakestore.World, name string, r *ownership.RelayState) {
	t.Helper()
	st := w.Store().Observe(name).Record.State
	if st == nil {
		t.Fatal("no record")
	}
	next := st.Clone()
	next.Relay = r
	w.SetRecord(name, next)
}

func condition(t *testing.T, s DaemonStatus, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(s.Conditions, typ)
	if c == nil {
		t.Fatalf("no %s condition in %+v", typ, s.Conditions)
	}
	return *c
}

// A healthy owner whose relay is blocked is Running but not Ready and not
// converged, Degraded with the block's reason and message; a rate-limited
// relay is Ready; the relay's figures are in the status either way.
func TestPassJudgesTheRelay(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	if _, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	for _, tc := range []struct {
		what   string
		relay  *ownership.RelayState
		ready  bool
		reason string
	}{
		{"no relay", nil, true, ReasonReady},
		{"channel unavailable", &ownership.RelayState{Pending: 3, OldestPendingAt: now - 5000, Failed: 1,
			Blocked: &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "channel C1 not found"}}, false, "ChannelUnavailable"},
		{"relay blocked", &ownership.RelayState{Pending: 4, Blocked: &ownership.RelayBlock{Reason: "RelayBlocked", Message: "missing_scope chat:write"}}, false, "RelayBlocked"},
		{"rate limited", &ownership.RelayState{Pending: 9, RateLimitedUntil: now + 30000, LastPostAt: now - 1000, Posted: 40, PostSeconds: 2.5, RateLimitWaits: 3}, true, ReasonReady},
	} {
		withRelay(t, w, "bot", tc.relay)
		out := r.Reconcile(context.Background(), "bot", d, res)
		s := out.Status
		ready, degraded := condition(t, s, ConditionReady), condition(t, s, ConditionDegraded)
		if s.Phase != PhaseRunning || s.Converged != tc.ready || s.Reason != tc.reason || (ready.Status == metav1.ConditionTrue) != tc.ready || ready.Reason != tc.reason {
			t.Errorf("%s: %s %s converged=%v, Ready %s %s; want Running %s ready=%v", tc.what, s.Phase, s.Reason, s.Converged, ready.Status, ready.Reason, tc.reason, tc.ready)
		}
		if tc.relay == nil {
			if s.Relay != nil {
				t.Errorf("%s: relay %+v from a record without one", tc.what, s.Relay)
			}
			continue
		}
		if s.Relay == nil || s.Relay.Pending != tc.relay.Pending || s.Relay.Posted != tc.relay.Posted || s.Relay.RateLimitWaits != tc.relay.RateLimitWaits ||
			(tc.relay.RateLimitedUntil != 0) != (s.Relay.RateLimitedUntil != nil) || (tc.relay.OldestPendingAt != 0) != (s.Relay.OldestPendingAt != nil) {
			t.Errorf("%s: relay status %+v from %+v", tc.what, s.Relay, tc.relay)
		}
		if b := tc.relay.Blocked; b != nil {
			if degraded.Status != metav1.ConditionTrue || degraded.Reason != b.Reason || degraded.Message != b.Message || ready.Message != b.Message || s.Message != b.Message {
				t.Errorf("%s: Degraded %s %s %q, Ready message %q; want True %s %q", tc.what, degraded.Status, degraded.Reason, degraded.Message, ready.Message, b.Reason, b.Message)
			}
			if p := summarize(&Status{SpecValid: true, Daemons: []DaemonStatus{s}}); p.Converged {
				t.Errorf("%s: a pass with a blocked relay converged", tc.what)
			}
		} else if degraded.Status != metav1.ConditionFalse {
			t.Errorf("%s: Degraded %s %s", tc.what, degraded.Status, degraded.Reason)
		}
	}
}

// The live look shows a block that began after the pass (undoing its
// convergence) and never one of a released owner.
func TestLiveStatusRelay(t *testing.T) {
	block := &ownership.RelayBlock{Reason: "RelayBlocked", Message: "403 Missing Access"}
	healthy := ownership.Classification{Class: ownership.ClassCompatible, Health: ownership.HealthHealthy}
	saved := func() DaemonStatus {
		s := DaemonStatus{Name: "bot", DesiredState: "Running", Phase: PhaseRunning, Reason: ReasonReady, Message: "healthy", Converged: true, PID: 4242}
		setReady(&s)
		return s
	}
	owner := &ownership.State{PID: 4242, OwnerID: "o-1", Kind: "slack", Relay: &ownership.RelayState{Pending: 2, Blocked: block}}
	got := glanced(saved(), ownership.Record{Present: true, State: owner}, healthy, false)
	if got.Converged || got.Reason != "RelayBlocked" || got.Relay == nil || got.Relay.Pending != 2 {
		t.Fatalf("blocked since the pass: %s converged=%v relay %+v", got.Reason, got.Converged, got.Relay)
	}
	if c := condition(t, got, ConditionReady); c.Status != metav1.ConditionFalse || c.Reason != "RelayBlocked" || c.Message != block.Message {
		t.Errorf("Ready %+v", c)
	}
	if c := condition(t, got, ConditionDegraded); c.Status != metav1.ConditionTrue || c.Reason != "RelayBlocked" {
		t.Errorf("Degraded %+v", c)
	}

	unblocked := *owner
	unblocked.Relay = &ownership.RelayState{Pending: 0, Posted: 7}
	if got := glanced(saved(), ownership.Record{Present: true, State: &unblocked}, healthy, false); !got.Converged || got.Relay.Posted != 7 {
		t.Errorf("an unblocked relay: converged=%v relay %+v", got.Converged, got.Relay)
	}

	released := *owner
	at := int64(1)
	released.StoppedAt = &at
	stopped := ownership.Classification{Class: ownership.ClassStopped, Reason: ownership.ReasonOwnerReleased}
	if got := glanced(saved(), ownership.Record{Present: true, State: &released}, stopped, false); got.Relay != nil {
		t.Errorf("a released owner's relay shown: %+v", got.Relay)
	}
}

// The asks' counts reach the status as the record has them; a relay that
// never asked and never refused a click shows none.
func TestRelayStatusOfAsks(t *testing.T) {
	for _, c := range []struct {
		name string
		r    ownership.RelayState
		want *AskStatus
	}{
		{"none", ownership.RelayState{Pending: 1}, nil},
		{"one refused click", ownership.RelayState{AsksRefused: 1}, &AskStatus{Refused: 1}},
		{"all", ownership.RelayState{AsksOpen: 2, AsksDecided: 5, AsksExpired: 1, AsksRefused: 3}, &AskStatus{Open: 2, Decided: 5, Expired: 1, Refused: 3}},
	} {
		got := relayStatusOf(&c.r).Asks
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: asks %+v, want %+v", c.name, got, c.want)
		}
	}
}
