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

// readLanding judges a reply a history read landed: missed when a sweep
// found it past the grace. One too young to tell, whatever read found
// it (a sweep, or the read of a connect or of a new thread racing the
// live delivery), is remembered, and counted missed at a later sweep
// (overdue) unless the live connection delivers it by then. An old one
// a connect's read found was sent while the connection was down: not
// the live connection's to deliver.
func (in *Inbound) readLanding(ev Event, sweep bool) bool {
	if in.missedBy(ev) {
		return sweep
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, heard := in.heard[ev.ID]; !heard && !ev.Time.IsZero() {
		in.young[ev.ID] = ev.Time
	}
	return false
}

// heardLive notes a live delivery of id: not missed after all, whether
// a read's landing of it is judged before this or after.
func (in *Inbound) heardLive(id string) {
	in.mu.Lock()
	delete(in.young, id)
	in.heard[id] = in.opts.Now()
	in.mu.Unlock()
}

// overdue counts, and forgets, the replies a sweep landed young that the
// live connection has not delivered within missedGrace of their sending.
func (in *Inbound) overdue() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for id, at := range in.young {
		if in.opts.Now().Sub(at) >= in.missedGrace() {
			delete(in.young, id)
			n++
		}
	}
	for id, at := range in.heard {
		if in.opts.Now().Sub(at) >= in.missedGrace() {
			delete(in.heard, id) // no read can race it any more
		}
	}
	return n
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
