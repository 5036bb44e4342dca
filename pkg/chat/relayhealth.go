package chat

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// RelayHealth is where a daemon reads its relay's health (DESIGN 5,
// "Health"): RelayState is read at each heartbeat (nil: nothing to report
// yet) and RelayChanged fires when it changed, so the record follows
// without waiting for the next beat.
type RelayHealth interface {
	RelayState() *ownership.RelayState
	RelayChanged() <-chan struct{}
	// Settled reports whether the relay's first look at its channel
	// answered; until then the daemon does not call itself healthy.
	Settled() bool
}

// relayMinGap is the least time between a heartbeat and one a relay change
// adds: a relay posting many messages a second changes its figures on each
// one, and each heartbeat is a rename and an fsync.
const relayMinGap = time.Second

// heartbeatOf is what a heartbeat publishes: the transport's health h and
// the relay's health as it is now.
//
// A daemon whose relay has not settled yet (its channel check has not
// answered) does not call itself healthy: Ready would otherwise come
// before a wrong channel id could show as ChannelUnavailable, and a
// bounded pass (--once) would call a daemon that posts nowhere converged.
func (d *daemon) heartbeatOf(h Health) ownership.Heartbeat {
	hb := ownership.Heartbeat{TransportHealthy: h.Healthy, TransportError: h.Err, TransportReason: h.Reason, Logins: h.Logins}
	if d.relay != nil {
		hb.Relay = d.relay.RelayState()
		if !d.relay.Settled() {
			hb.TransportHealthy = false
		}
	}
	return hb
}

// relayBeats turns relay changes into heartbeats, at most one per
// relayMinGap after the last heartbeat written for any reason; a change
// inside the gap arms one timer, and the changes that follow before it
// fires are published by that one write.
type relayBeats struct {
	src   RelayHealth
	timer *time.Timer
}

// changed fires on a relay change; never without a relay.
func (r *relayBeats) changed() <-chan struct{} {
	if r.src == nil {
		return nil
	}
	return r.src.RelayChanged()
}

// fired fires when a deferred relay heartbeat is due; never while none is.
func (r *relayBeats) fired() <-chan time.Time {
	if r.timer == nil {
		return nil
	}
	return r.timer.C
}

// onChange decides, at now, for a change after the heartbeat written at
// last: true to write now; false when a write is already armed or is
// armed now for later.
func (r *relayBeats) onChange(last, now time.Time) bool {
	if r.timer != nil {
		return false
	}
	wait := relayWait(last, now, relayMinGap)
	if wait <= 0 {
		return true
	}
	r.timer = time.NewTimer(wait)
	return false
}

// done is called when the armed write was made.
func (r *relayBeats) done() { r.timer = nil }

func (r *relayBeats) stop() {
	if r.timer != nil {
		r.timer.Stop()
	}
}

// relayWait is how long a relay change at now waits for its heartbeat,
// the last one written at last: 0 once gap has passed (or the clock went
// back, which must not hold the record back by more than gap).
func relayWait(last, now time.Time, gap time.Duration) time.Duration {
	since := now.Sub(last)
	if since >= gap || since < 0 {
		return 0
	}
	return gap - since
}
