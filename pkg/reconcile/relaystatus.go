package reconcile

import (
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
)

// RelayStatus is a daemon's relay as its live owner last published it in
// state.json (DESIGN 5, "Health"). nil while no relay has reported one:
// screens show that as unknown, not as an empty outbox.
type RelayStatus struct {
	// Pending counts the messages in outbox/ not yet all posted.
	Pending int64 `json:"pending"`
	// OldestPendingAt is when the oldest of them was seen; nil: none.
	OldestPendingAt *metav1.Time `json:"oldestPendingAt,omitempty"`
	// Failed counts the messages moved to failed/.
	Failed int64 `json:"failed"`
	// Blocked is set while a configuration error pauses the relay, its
	// reason RelayBlocked or ChannelUnavailable; the backlog is kept.
	Blocked *ownership.RelayBlock `json:"blocked,omitempty"`
	// RateLimitedUntil is the end of the latest rate-limit wait still
	// running; nil: none. A rate-limited relay is still Ready.
	RateLimitedUntil *metav1.Time `json:"rateLimitedUntil,omitempty"`
	// LastPostAt is when the service last confirmed a post; nil: never.
	LastPostAt *metav1.Time `json:"lastPostAt,omitempty"`
	// Posted, PostSeconds and RateLimitWaits count since the daemon
	// started: parts confirmed, the sum of their request latencies, and
	// 429s honoured (the metrics' counters).
	Posted         int64   `json:"posted"`
	PostSeconds    float64 `json:"postSeconds"`
	RateLimitWaits int64   `json:"rateLimitWaits"`
	// Filtered counts, since the daemon started, the messages the spec's
	// verbosity left out: moved to sent/ unposted (lean: info messages).
	Filtered int64 `json:"filtered"`
	// Inbox is the way back since the daemon started; nil until a reply
	// or anything else came back.
	Inbox *InboxStatus `json:"inbox,omitempty"`
	// Asks are the questions with buttons; nil until the daemon posted
	// one or refused a click.
	Asks *AskStatus `json:"asks,omitempty"`
}

// AskStatus counts the asks: Open waits for a decision now; since the
// daemon started, Decided by a click, Expired with none, and Refused the
// clicks of people who may not decide.
type AskStatus struct {
	Open    int64 `json:"open"`
	Decided int64 `json:"decided"`
	Expired int64 `json:"expired"`
	Refused int64 `json:"refused"`
}

// InboxStatus counts what came back from the chat service: replies
// landed, deliveries of replies already landed, messages ignored (by
// reason: "unauthorized", "bot", "self", "edit", ...), when the latest
// landed reply was sent, and the replies that could not land yet and are
// being tried again.
type InboxStatus struct {
	Landed     int64            `json:"landed"`
	Waiting    int64            `json:"waiting,omitempty"`
	Duplicates int64            `json:"duplicates"`
	Ignored    int64            `json:"ignored"`
	IgnoredBy  map[string]int64 `json:"ignoredBy,omitempty"`
	LastAt     *metav1.Time     `json:"lastAt,omitempty"`
	// Missed counts the replies the history sweep found that the live
	// stream had not delivered.
	Missed int64 `json:"missed,omitempty"`
	// LagSeconds is the latest landed reply's inbound lag: from the
	// service's timestamp to its landing.
	LagSeconds float64 `json:"lagSeconds,omitempty"`
}

// relayStatusOf is a record's relay as status shows it.
func relayStatusOf(r *ownership.RelayState) *RelayStatus {
	if r == nil {
		return nil
	}
	out := &RelayStatus{Pending: r.Pending, Failed: r.Failed, Posted: r.Posted, PostSeconds: r.PostSeconds, RateLimitWaits: r.RateLimitWaits, Filtered: r.Filtered,
		OldestPendingAt: msTime(r.OldestPendingAt), RateLimitedUntil: msTime(r.RateLimitedUntil), LastPostAt: msTime(r.LastPostAt)}
	if r.Blocked != nil {
		b := *r.Blocked
		out.Blocked = &b
	}
	if r.InboxLanded+r.InboxDuplicates+r.InboxIgnored+r.InboxWaiting+r.InboxMissed > 0 {
		out.Inbox = &InboxStatus{Landed: r.InboxLanded, Waiting: r.InboxWaiting, Duplicates: r.InboxDuplicates, Ignored: r.InboxIgnored,
			IgnoredBy: maps.Clone(r.InboxIgnoredBy), LastAt: msTime(r.LastInboxAt),
			Missed: r.InboxMissed, LagSeconds: float64(r.InboxLagMs) / 1000}
	}
	if r.AsksOpen+r.AsksDecided+r.AsksExpired+r.AsksRefused > 0 {
		out.Asks = &AskStatus{Open: r.AsksOpen, Decided: r.AsksDecided, Expired: r.AsksExpired, Refused: r.AsksRefused}
	}
	return out
}

// msTime is a record's unix ms as a status time, nil for 0 (never).
func msTime(ms int64) *metav1.Time {
	if ms == 0 {
		return nil
	}
	t := metav1.NewTime(time.UnixMilli(ms))
	return &t
}

// relayBlocked applies a blocked relay to a Running status: the daemon is
// connected but does not do its job, so it is not converged and not
// Ready, with the block's reason and message (and, in a pass, Degraded).
// It reports whether it did. A `--once` run therefore ends not converged
// (exit 1) while the channel is wrong or the bot lacks access: that is
// something only a person can fix, and reporting success would hide the
// very mistake the channel check exists to catch. The relay retries on its
// own, so the next heartbeat after the fix makes the name Ready again.
func relayBlocked(s *DaemonStatus) bool {
	if s.Relay == nil || s.Relay.Blocked == nil || s.Phase != PhaseRunning || s.PID == 0 {
		return false
	}
	s.Reason, s.Message, s.Converged = s.Relay.Blocked.Reason, s.Relay.Blocked.Message, false
	return true
}
