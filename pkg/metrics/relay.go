package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/relay"
)

// The relay's metrics (DESIGN 8), per daemon of the spec whose owner
// publishes its relay's health in state.json: read from the status, so
// they are what the records said at the last reconcile of each name.
const (
	NameRelayPending        = "reconciler_relay_pending"
	NameRelayFailed         = "reconciler_relay_failed"
	NameRelayBlocked        = "reconciler_relay_blocked"
	NameRelayPosted         = "reconciler_relay_posted_total"
	NameRelayRateLimitWaits = "reconciler_relay_rate_limit_waits_total"
	NameRelayPostSeconds    = "reconciler_relay_post_seconds"
	NameRelayFiltered       = "reconciler_relay_filtered_total"
	NameInboxLag            = "reconciler_inbox_lag_seconds"
	NameInboxMissed         = "reconciler_inbox_missed_total"
	NameAsksOpen            = "reconciler_asks_open"
	NameAsksDecided         = "reconciler_asks_decided_total"
	NameAsksExpired         = "reconciler_asks_expired_total"
	NameAskClicksRefused    = "reconciler_ask_clicks_refused_total"
)

// blockReasons are the reason label's values: every one is sent, 1 for
// the relay's current block and 0 for the others, so an alert on
// "blocked == 1" sees the end of a block as a 0, not as an absence.
var blockReasons = []string{relay.ReasonRelayBlocked, relay.ReasonChannelUnavailable}

var (
	daemonLabels      = []string{"name", "provider"}
	relayPendingDesc  = prometheus.NewDesc(NameRelayPending, "Messages in the daemon's outbox not yet all posted.", daemonLabels, nil)
	relayFailedDesc   = prometheus.NewDesc(NameRelayFailed, "Messages the relay moved to failed/.", daemonLabels, nil)
	relayBlockedDesc  = prometheus.NewDesc(NameRelayBlocked, "1 while the daemon's relay is paused for this reason (a configuration error, the backlog kept), 0 otherwise.", []string{"name", "provider", "reason"}, nil)
	relayPostedDesc   = prometheus.NewDesc(NameRelayPosted, "Message parts the service confirmed since the daemon started.", daemonLabels, nil)
	relayWaitsDesc    = prometheus.NewDesc(NameRelayRateLimitWaits, "Rate-limit answers (429) the relay honoured since the daemon started.", daemonLabels, nil)
	relayPostSecsDesc = prometheus.NewDesc(NameRelayPostSeconds, "Request latency of the message parts the service confirmed since the daemon started.", daemonLabels, nil)
	relayFilteredDesc = prometheus.NewDesc(NameRelayFiltered, "Messages the spec's verbosity left out (moved to sent/ unposted) since the daemon started.", daemonLabels, nil)
	inboxLagDesc      = prometheus.NewDesc(NameInboxLag, "The latest landed reply's inbound lag: from its timestamp at the service to its landing in the inbox.", daemonLabels, nil)
	inboxMissedDesc   = prometheus.NewDesc(NameInboxMissed, "Replies the history sweep landed that the live connection had not delivered, since the daemon started; each sweep that finds some reconnects the transport.", daemonLabels, nil)
	asksOpenDesc      = prometheus.NewDesc(NameAsksOpen, "Asks posted and waiting for a decision.", daemonLabels, nil)
	asksDecidedDesc   = prometheus.NewDesc(NameAsksDecided, "Asks an authorized user decided, since the daemon started.", daemonLabels, nil)
	asksExpiredDesc   = prometheus.NewDesc(NameAsksExpired, "Asks nobody decided before they expired, since the daemon started.", daemonLabels, nil)
	askRefusedDesc    = prometheus.NewDesc(NameAskClicksRefused, "Clicks on an ask's buttons by users who may not decide it, since the daemon started.", daemonLabels, nil)
)

// relayDescs are what Describe sends for the relay.
var relayDescs = []*prometheus.Desc{relayPendingDesc, relayFailedDesc, relayBlockedDesc, relayPostedDesc, relayWaitsDesc, relayPostSecsDesc, relayFilteredDesc, inboxLagDesc, inboxMissedDesc,
	asksOpenDesc, asksDecidedDesc, asksExpiredDesc, askRefusedDesc}

// relayMetrics are d's relay series; none while its owner publishes no
// relay: unknown, not zero. The counters restart with the daemon, which
// rate() reads as a counter reset.
func relayMetrics(d reconcile.DaemonStatus) []prometheus.Metric {
	r := d.Relay
	if r == nil {
		return nil
	}
	out := []prometheus.Metric{
		prometheus.MustNewConstMetric(relayPendingDesc, prometheus.GaugeValue, float64(r.Pending), d.Name, d.Provider),
		prometheus.MustNewConstMetric(relayFailedDesc, prometheus.GaugeValue, float64(r.Failed), d.Name, d.Provider),
		prometheus.MustNewConstMetric(relayPostedDesc, prometheus.CounterValue, float64(r.Posted), d.Name, d.Provider),
		prometheus.MustNewConstMetric(relayWaitsDesc, prometheus.CounterValue, float64(r.RateLimitWaits), d.Name, d.Provider),
		prometheus.MustNewConstSummary(relayPostSecsDesc, uint64(r.Posted), r.PostSeconds, nil, d.Name, d.Provider),
		prometheus.MustNewConstMetric(relayFilteredDesc, prometheus.CounterValue, float64(r.Filtered), d.Name, d.Provider),
	}
	blocked := ""
	if r.Blocked != nil {
		blocked = bounded(r.Blocked.Reason, blockReasons)
	}
	for _, reason := range blockReasons {
		out = append(out, prometheus.MustNewConstMetric(relayBlockedDesc, prometheus.GaugeValue, boolValue(blocked == reason), d.Name, d.Provider, reason))
	}
	if blocked == Other { // a reason outside the set, should one ever come
		out = append(out, prometheus.MustNewConstMetric(relayBlockedDesc, prometheus.GaugeValue, 1, d.Name, d.Provider, Other))
	}
	if in := r.Inbox; in != nil {
		// The lag only once a reply landed: unknown, not zero, before.
		if in.Landed > 0 {
			out = append(out, prometheus.MustNewConstMetric(inboxLagDesc, prometheus.GaugeValue, in.LagSeconds, d.Name, d.Provider))
		}
		out = append(out, prometheus.MustNewConstMetric(inboxMissedDesc, prometheus.CounterValue, float64(in.Missed), d.Name, d.Provider))
	}
	// Zero until the first ask: a daemon that asked nothing has none open.
	var asks reconcile.AskStatus
	if r.Asks != nil {
		asks = *r.Asks
	}
	out = append(out,
		prometheus.MustNewConstMetric(asksOpenDesc, prometheus.GaugeValue, float64(asks.Open), d.Name, d.Provider),
		prometheus.MustNewConstMetric(asksDecidedDesc, prometheus.CounterValue, float64(asks.Decided), d.Name, d.Provider),
		prometheus.MustNewConstMetric(asksExpiredDesc, prometheus.CounterValue, float64(asks.Expired), d.Name, d.Provider),
		prometheus.MustNewConstMetric(askRefusedDesc, prometheus.CounterValue, float64(asks.Refused), d.Name, d.Provider))
	return out
}
