package providertest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
)

// Rate limits are honoured, never dropped (DESIGN 5): posts the service
// answers 429 wait out its Retry-After and go again, and every message of
// every session is still posted exactly once, in order, nothing failed.
func rateLimits(t *testing.T, s Subject) {
	t.Parallel()
	f := s.Start(t, 0)
	render := s.render(t)
	dir, d := newBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var msgs []bus.Message
	for i := range 6 {
		sess := fmt.Sprintf("s%d", i%2)
		m := bus.Message{ID: fmt.Sprintf("m%02d", i), Session: sess, Text: fmt.Sprintf("message %d of %s", i, sess)}
		if i < 2 {
			m.Event, m.Title = bus.EventOpen, "Limited "+sess
		}
		msgs = append(msgs, m)
	}
	f.RateLimitNext(3, time.Second)
	publish(t, d, msgs)
	rc := startRelay(t, s, f, dir)
	waitRelay(ctx, t, rc, "every message sent", func(st *ownership.RelayState) bool {
		ents, err := os.ReadDir(d.Sent)
		return err == nil && len(ents) == len(msgs) && st.Pending == 0
	})
	if st := rc.RelayState(); st.RateLimitWaits == 0 {
		t.Errorf("the relay honoured no 429 (state %+v); the fake's were not met", describe(st))
	}
	for _, b := range checkDelivered(s, f, render, d, msgs) {
		t.Error(b)
	}
}
