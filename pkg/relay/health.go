package relay

import "time"

// Health is what the relay publishes in state.json each heartbeat
// (DESIGN 5, "Health").
type Health struct {
	// Settled: the channel check has answered, passed or blocked (or the
	// bus was found unusable). Until then the relay cannot say whether it
	// will post, and its daemon does not call itself healthy.
	Settled         bool
	Pending         int       // messages in outbox/ not yet all posted
	OldestPendingAt time.Time // when the oldest of them was seen; zero if none
	Failed          int       // files in failed/
	// Blocked is set while the relay is paused by a configuration error:
	// Reason is ReasonRelayBlocked or ReasonChannelUnavailable.
	Blocked          *Block
	RateLimitedUntil time.Time // the latest rate-limit wait still running; zero if none
	LastPostAt       time.Time // when the service last confirmed a part; zero if never
	Posted           int64     // parts the service confirmed since start
	PostSeconds      float64   // the sum of those parts' request latencies
	RateLimitWaits   int64     // 429s honoured since start
	// Filtered counts the messages the verbosity left out (lean: an info
	// message) since start, moved to sent/ unposted.
	Filtered int64
}

// Block says why the relay is paused.
type Block struct{ Reason, Message string }
