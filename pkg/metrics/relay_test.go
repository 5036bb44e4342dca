package metrics

import (
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The relay's figures are exported from each daemon's status: gauges for
// the backlog, the block (every reason sent) and the open asks, counters,
// and the post latency as a summary's sum and count; a daemon without a
// relay has none of them.
func TestRelayValues(t *testing.T) {
	m := New()
	m.Status(reconcile.PassResult{Status: &reconcile.Status{Version: 1, SpecValid: true, Daemons: []reconcile.DaemonStatus{
		{Name: "busy", Provider: "discord", DesiredState: "Running", Phase: reconcile.PhaseRunning,
			Relay: &reconcile.RelayStatus{Pending: 3, Failed: 1, Posted: 40, PostSeconds: 6.5, RateLimitWaits: 2, Filtered: 7,
				Inbox: &reconcile.InboxStatus{Landed: 3, Missed: 2, LagSeconds: 1.5},
				Asks:  &reconcile.AskStatus{Open: 2, Decided: 9, Expired: 1, Refused: 4}}},
		{Name: "paused", Provider: "slack", DesiredState: "Running", Phase: reconcile.PhaseRunning, Reason: "ChannelUnavailable",
			Relay: &reconcile.RelayStatus{Pending: 5, Blocked: &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "channel C1 not found"}}},
		{Name: "norelay", Provider: "slack", DesiredState: "Running", Phase: reconcile.PhaseRunning},
	}}})
	families := gather(t, m)
	for _, c := range []struct {
		name   string
		labels string
		want   float64
	}{
		{NameRelayPending, "name=busy,provider=discord", 3},
		{NameRelayFailed, "name=busy,provider=discord", 1},
		{NameRelayPosted, "name=busy,provider=discord", 40},
		{NameRelayRateLimitWaits, "name=busy,provider=discord", 2},
		{NameRelayFiltered, "name=busy,provider=discord", 7},
		{NameRelayFiltered, "name=paused,provider=slack", 0},
		{NameRelayBlocked, "name=busy,provider=discord,reason=RelayBlocked", 0},
		{NameRelayBlocked, "name=busy,provider=discord,reason=ChannelUnavailable", 0},
		{NameRelayPending, "name=paused,provider=slack", 5},
		{NameRelayBlocked, "name=paused,provider=slack,reason=ChannelUnavailable", 1},
		{NameRelayBlocked, "name=paused,provider=slack,reason=RelayBlocked", 0},
		{NameInboxLag, "name=busy,provider=discord", 1.5},
		{NameInboxMissed, "name=busy,provider=discord", 2},
		{NameAsksOpen, "name=busy,provider=discord", 2},
		{NameAsksDecided, "name=busy,provider=discord", 9},
		{NameAsksExpired, "name=busy,provider=discord", 1},
		{NameAskClicksRefused, "name=busy,provider=discord", 4},
		{NameAsksOpen, "name=paused,provider=slack", 0}, // none asked: zero, not absent
		{NameAskClicksRefused, "name=paused,provider=slack", 0},
	} {
		if got, ok := value(families[c.name], c.labels); !ok || got != c.want {
			t.Errorf("%s{%s} = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, s := range families[NameRelayPostSeconds].GetMetric() {
		if labelsOf(s)["name"] != "busy" {
			continue
		}
		if sum := s.GetSummary(); sum.GetSampleCount() != 40 || sum.GetSampleSum() != 6.5 {
			t.Errorf("post seconds: count %d sum %v, want 40 and 6.5", sum.GetSampleCount(), sum.GetSampleSum())
		}
	}
	for name, mf := range families {
		for _, s := range mf.GetMetric() {
			if labelsOf(s)["name"] == "norelay" && (strings.HasPrefix(name, "reconciler_relay_") || strings.HasPrefix(name, "reconciler_inbox_") || strings.HasPrefix(name, "reconciler_ask")) {
				t.Errorf("%s has a series for a daemon without a relay", name)
			}
		}
	}
}
