package fakestore_test

import (
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
)

// The clock moves only when told: an owner's heartbeat goes stale, and the
// owner hung, exactly when the world's clock passes the heartbeat TTL.
func TestClockMovesOnlyWhenTold(t *testing.T) {
	w := fakestore.New()
	s := w.Store()
	startOwner(t, w, false)
	before := s.Now()
	w.Advance(ownership.HeartbeatTTL)
	if got := s.Now().Sub(before); got != ownership.HeartbeatTTL {
		t.Fatalf("Advance(%v) moved the clock by %v", ownership.HeartbeatTTL, got)
	}
	if h := s.Observe("bot").Classify(want).Health; h != ownership.HealthHealthy {
		t.Fatalf("a heartbeat exactly the TTL old is %s, want healthy", h)
	}
	w.Advance(time.Millisecond)
	if c := s.Observe("bot").Classify(want); c.Health != ownership.HealthHung || c.Reason != ownership.ReasonOwnerHung {
		t.Fatalf("a heartbeat past the TTL: %s/%s (%s), want hung", c.Health, c.Reason, c.Message)
	}
}
