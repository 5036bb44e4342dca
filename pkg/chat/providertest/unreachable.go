package providertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/relay"
)

// A channel the bot cannot reach when the relay starts is a verdict on
// the spec, not a reason to fail messages (DESIGN 5): the relay settles
// ChannelUnavailable with its backlog kept, and posts it, once, when the
// channel is reachable again.
func channelUnreachableAtStart(t *testing.T, s Subject) {
	t.Parallel()
	f := s.Start(t, 0)
	render := s.render(t)
	dir, d := newBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	msgs := []bus.Message{{ID: "m1", Session: "s1", Event: bus.EventOpen, Title: "Unreachable", Text: "waiting for the channel"}}
	f.LoseChannel(true)
	publish(t, d, msgs)
	rc := startRelay(t, s, f, dir)
	waitRelay(ctx, t, rc, "ChannelUnavailable", func(st *ownership.RelayState) bool {
		return st.Blocked != nil && st.Blocked.Reason == relay.ReasonChannelUnavailable && st.Pending == 1
	})
	if !rc.Settled() {
		t.Error("blocked on the channel check, yet not settled: the daemon would never say why it is not ready")
	}
	noneFailed(t, d)
	f.LoseChannel(false)
	waitRelay(ctx, t, rc, "posted once the channel is back", func(st *ownership.RelayState) bool {
		_, err := os.Stat(filepath.Join(d.Sent, "m1.json"))
		return err == nil && st.Pending == 0 && st.Blocked == nil
	})
	for _, b := range checkDelivered(s, f, render, d, msgs) {
		t.Error(b)
	}
}
