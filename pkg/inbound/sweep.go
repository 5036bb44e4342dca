package inbound

import (
	"fmt"
	"time"
)

// A deaf connection (DESIGN 5, "At the services' limits"): a connection
// can look healthy and deliver nothing. Every Options.Sweep the open
// sessions' history is read; a reply the sweep lands that the live stream
// should have delivered by then is missed, counted, and makes the
// transport reconnect (Options.Deaf).

// missedGrace is how old a reply must be, when a sweep lands it, to
// count as missed: a younger one may still be on its way over the live
// stream (or in a redelivery), which would then find it a duplicate.
// It is at most half the sweep interval, so that a short sweep (tests)
// still judges.
func (in *Inbound) missedGrace() time.Duration {
	return min(time.Minute, in.opts.Sweep/2)
}

// missedBy reports whether ev, landed by a sweep, was missed by the live
// stream: it was sent longer ago than missedGrace.
func (in *Inbound) missedBy(ev Event) bool {
	return !ev.Time.IsZero() && in.opts.Now().Sub(ev.Time) >= in.missedGrace()
}

// missed counts n replies a sweep landed that the live stream missed,
// and asks the transport to reconnect: while it looks healthy, it is
// not delivering.
func (in *Inbound) missed(n int) {
	if n == 0 {
		return
	}
	in.mu.Lock()
	in.health.Missed += int64(n)
	in.changed()
	in.mu.Unlock()
	why := fmt.Sprintf("the history sweep landed %d replies the live connection did not deliver", n)
	in.opts.Log.Info("replies missed by the live connection; asking the transport to reconnect", "missed", n, "why", why)
	in.opts.Deaf(why)
}
