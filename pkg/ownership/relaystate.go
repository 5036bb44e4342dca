package ownership

import (
	"maps"
	"slices"

	"gjc.dev/reconciler/pkg/ownership/internal/jswriter"
)

// RelayState is the relay's health as the owning daemon publishes it in
// state.json under "relay" (DESIGN 5, "Health"). This project's field;
// readers of the reference ignore it. Times are unix ms, 0 for never.
type RelayState struct {
	Pending          int64       `json:"pending"`
	OldestPendingAt  int64       `json:"oldestPendingAt,omitempty"`
	Failed           int64       `json:"failed"`
	Blocked          *RelayBlock `json:"blocked,omitempty"`
	RateLimitedUntil int64       `json:"rateLimitedUntil,omitempty"`
	LastPostAt       int64       `json:"lastPostAt,omitempty"`
	// Counters since the daemon started, for the loop's metrics.
	Posted         int64   `json:"posted"`
	PostSeconds    float64 `json:"postSeconds"`
	RateLimitWaits int64   `json:"rateLimitWaits"`
	// Filtered counts the messages the spec's verbosity left out (moved
	// to sent/ unposted). Written only once one was: a record without it
	// stays what an older reader knows.
	Filtered int64 `json:"filtered,omitempty"`
	// The way back, since the daemon started: replies landed in the
	// inbox, deliveries found already landed, messages ignored (not a
	// session's thread, not an authorized person, a bot, an edit), and
	// when the latest landed one was sent (unix ms).
	InboxLanded     int64 `json:"inboxLanded,omitempty"`
	InboxDuplicates int64 `json:"inboxDuplicates,omitempty"`
	InboxIgnored    int64 `json:"inboxIgnored,omitempty"`
	LastInboxAt     int64 `json:"lastInboxAt,omitempty"`
	// InboxIgnoredBy splits InboxIgnored by why (the inbound reasons:
	// "unauthorized", "bot", "self", ...), so an operator can tell a
	// reply from the wrong account from the bot's own echoes.
	InboxIgnoredBy map[string]int64 `json:"inboxIgnoredBy,omitempty"`
	// InboxWaiting is how many replies could not land yet (a full disk)
	// and are being tried again: now, not since the start.
	InboxWaiting int64 `json:"inboxWaiting,omitempty"`
	// InboxMissed counts the replies the history sweep found that the
	// live stream had not delivered (DESIGN 5, "A deaf connection").
	InboxMissed int64 `json:"inboxMissed,omitempty"`
	// InboxLagMs is the latest landed reply's inbound lag: from the
	// service's timestamp of the message to its landing, in ms.
	InboxLagMs int64 `json:"inboxLagMs,omitempty"`
	// The asks (DESIGN 5, "Decisions"): how many wait for a decision now,
	// and since the daemon started how many were decided, expired, and
	// how many clicks were refused (by people who may not decide).
	AsksOpen    int64 `json:"asksOpen,omitempty"`
	AsksDecided int64 `json:"asksDecided,omitempty"`
	AsksExpired int64 `json:"asksExpired,omitempty"`
	AsksRefused int64 `json:"asksRefused,omitempty"`
}

// RelayBlock says why a relay is paused: Reason is ReasonRelayBlocked or
// ReasonChannelUnavailable (a status condition reason), Message the detail
// (at most MaxDetail bytes).
type RelayBlock struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// The reasons a relay may be blocked for, as the record carries them. The
// record declares them, not the relay, so a store reads a record without
// linking the relay engine; pkg/relay uses these constants.
const (
	ReasonRelayBlocked       = "RelayBlocked"
	ReasonChannelUnavailable = "ChannelUnavailable"
)

// InboxIgnoredReasons are the keys RelayState.InboxIgnoredBy may hold: the
// reasons pkg/inbound ignores a message for, in its order (a test holds
// the two together). Any other key makes the record malformed.
var InboxIgnoredReasons = []string{"self", "edit", "other", "bot", "not-a-session", "unauthorized", "unusable"}

// MaxDetail caps the free text a record carries from a remote server or
// a stopper (transportError, terminated.message, relay.blocked.message),
// so the record stays far below MaxRecordSize: a writer truncates to it, a
// reader refuses a blocked message over it.
const MaxDetail = 1024

// marshal writes r as an object, its keys in the struct's order, the
// optional times and blocked omitted when unset.
func (r *RelayState) marshal(w *jswriter.Writer) {
	w.Open()
	w.Key("pending").Int(r.Pending)
	if r.OldestPendingAt != 0 {
		w.Key("oldestPendingAt").Int(r.OldestPendingAt)
	}
	w.Key("failed").Int(r.Failed)
	if r.Blocked != nil {
		w.Key("blocked").Open()
		w.Key("reason").Str(r.Blocked.Reason)
		w.Key("message").Str(r.Blocked.Message)
		w.Close()
	}
	if r.RateLimitedUntil != 0 {
		w.Key("rateLimitedUntil").Int(r.RateLimitedUntil)
	}
	if r.LastPostAt != 0 {
		w.Key("lastPostAt").Int(r.LastPostAt)
	}
	w.Key("posted").Int(r.Posted)
	w.Key("postSeconds").Float(r.PostSeconds)
	w.Key("rateLimitWaits").Int(r.RateLimitWaits)
	for _, kv := range []struct {
		key string
		v   int64
	}{{"filtered", r.Filtered}, {"inboxLanded", r.InboxLanded}, {"inboxDuplicates", r.InboxDuplicates}, {"inboxIgnored", r.InboxIgnored}, {"lastInboxAt", r.LastInboxAt}} {
		if kv.v != 0 {
			w.Key(kv.key).Int(kv.v)
		}
	}
	if len(r.InboxIgnoredBy) > 0 {
		w.Key("inboxIgnoredBy").Open()
		for _, k := range slices.Sorted(maps.Keys(r.InboxIgnoredBy)) {
			w.Key(k).Int(r.InboxIgnoredBy[k])
		}
		w.Close()
	}
	for _, kv := range []struct {
		key string
		v   int64
	}{{"inboxWaiting", r.InboxWaiting}, {"inboxMissed", r.InboxMissed}, {"inboxLagMs", r.InboxLagMs},
		{"asksOpen", r.AsksOpen}, {"asksDecided", r.AsksDecided}, {"asksExpired", r.AsksExpired}, {"asksRefused", r.AsksRefused}} {
		if kv.v != 0 {
			w.Key(kv.key).Int(kv.v)
		}
	}
	w.Close()
}

// Clone returns a deep copy (nil for nil).
func (r *RelayState) Clone() *RelayState {
	if r == nil {
		return nil
	}
	c := *r
	c.InboxIgnoredBy = maps.Clone(r.InboxIgnoredBy)
	if r.Blocked != nil {
		b := *r.Blocked
		c.Blocked = &b
	}
	return &c
}
