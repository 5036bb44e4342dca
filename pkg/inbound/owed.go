package inbound

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// Owed replies: decided to land, but landing failed (a full disk, a
// journal that would not take the record, a rename refused). Nothing
// else would bring them back before the next reconnect, which may be a
// day away, so they are retried with back-off on their own. Within a
// session they land in order: a later reply waits behind an owed one
// (it is owed too), so the agent never reads a reply and only later one
// sent before it.

// maxOwed bounds the replies kept in memory to retry. One past it is not
// kept: the next history read or the service's redelivery brings it (the
// cursor never moves past a reply that did not land).
const maxOwed = 1000

type owedReply struct {
	ev      Event
	session string
}

// owe keeps ev to be retried, once, in (time, id) order; a reply already
// kept keeps its place. in.mu is held.
func (in *Inbound) owe(ev Event, session string) {
	i, found := slices.BinarySearchFunc(in.owed, ev, func(o owedReply, ev Event) int { return compareEvents(o.ev, ev) })
	if found {
		return
	}
	if len(in.owed) >= maxOwed {
		in.opts.Log.Info("too many replies wait to land; this one is left to the next history read", "message", ev.ID, "session", session)
		return
	}
	in.owed = slices.Insert(in.owed, i, owedReply{ev: ev, session: session})
	in.health.Owed = len(in.owed)
	poke(in.retry)
}

// settle drops id from the owed replies: it landed, or is ignored now.
// in.mu is held.
func (in *Inbound) settle(id string) {
	n := len(in.owed)
	in.owed = slices.DeleteFunc(in.owed, func(o owedReply) bool { return o.ev.ID == id })
	if len(in.owed) != n {
		in.health.Owed = len(in.owed)
	}
}

// owedBefore reports whether a reply of session sent before ev is owed:
// ev must wait behind it. in.mu is held.
func (in *Inbound) owedBefore(session string, ev Event) bool {
	for _, o := range in.owed {
		if compareEvents(o.ev, ev) >= 0 {
			return false
		}
		if o.session == session {
			return true
		}
	}
	return false
}

// compareEvents orders replies as their inbox files sort: by time, then
// by id.
func compareEvents(a, b Event) int {
	return cmp.Or(cmp.Compare(a.Time.UnixMilli(), b.Time.UnixMilli()), compareIDs(a.ID, b.ID))
}

// retryLoop lands the owed replies, oldest first, whenever one is owed,
// waiting with back-off while any is still owed.
func (in *Inbound) retryLoop(ctx context.Context) {
	b := in.newBackoff()
	for {
		select {
		case <-ctx.Done():
			return
		case <-in.retry:
		}
		for !in.landOwed(ctx) {
			if ctx.Err() != nil {
				return
			}
			in.opts.Log.Info("replies still wait to land; trying again", "owed", in.Health().Owed, "in", b.peek().String())
			if !b.wait(ctx) {
				return
			}
		}
		b.reset()
	}
}

// landOwed tries each owed reply once, in order, skipping the rest of a
// session after one of its replies failed; true once none is owed.
func (in *Inbound) landOwed(ctx context.Context) bool {
	in.mu.Lock()
	owed := slices.Clone(in.owed)
	in.mu.Unlock()
	stuck := map[string]bool{}
	for _, o := range owed {
		if stuck[o.session] {
			continue
		}
		if _, err := in.land(ctx, o.ev); err != nil {
			stuck[o.session] = true
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.owed) == 0
}

// errWaitsBehind is the answer for a reply that waits behind an owed one.
func errWaitsBehind(ev Event, session string) error {
	return fmt.Errorf("reply %s waits behind an earlier reply of session %s that could not land yet; it lands after it, on its own", ev.ID, session)
}
