package ownership

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
}

// RelayBlock says why a relay is paused: Reason is RelayBlocked or
// ChannelUnavailable (a status condition reason), Message the detail.
type RelayBlock struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}
