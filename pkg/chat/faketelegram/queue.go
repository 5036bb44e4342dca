package faketelegram

import "slices"

// update is an Update with the payload it is delivered with, made when it
// was created, as the service keeps it.
type update struct {
	Update
	payload any
}

// updateQueue is the bot's updates: kept, in order, until an offset
// confirms them. Guarded by Server.mu.
type updateQueue struct {
	next    int64 // the next update's id
	all     []*update
	pending []*update // not confirmed yet, oldest first
	// allowed are the kinds allowed_updates asked for; nil is the
	// service's default: every kind but message_reaction.
	allowed map[string]bool
	wake    chan struct{} // closed when an update is queued
}

func newUpdateQueue(first int64) updateQueue {
	return updateQueue{next: first, wake: make(chan struct{})}
}

// allows says whether a new update of kind is queued at all: as the
// service words it, allowed_updates "doesn't affect updates created
// before the call".
func (q *updateQueue) allows(kind string) bool {
	if q.allowed == nil {
		return kind != KindReaction
	}
	return q.allowed[kind]
}

// setAllowed keeps allowed_updates until the next that names them; an
// empty list is the default.
func (q *updateQueue) setAllowed(kinds []string) {
	q.allowed = nil
	if len(kinds) > 0 {
		q.allowed = map[string]bool{}
		for _, k := range kinds {
			q.allowed[k] = true
		}
	}
}

// add queues an update, wakes a waiting poll and returns its id.
func (q *updateQueue) add(u Update, payload any) int64 {
	u.ID = q.next
	q.next++
	e := &update{Update: u, payload: payload}
	q.all = append(q.all, e)
	q.pending = append(q.pending, e)
	close(q.wake)
	q.wake = make(chan struct{})
	return u.ID
}

// confirm applies a getUpdates offset: every update below a positive
// offset is confirmed and forgotten; a negative one keeps only the last
// -offset updates.
func (q *updateQueue) confirm(offset int64) {
	n := 0
	switch {
	case offset > 0:
		for n < len(q.pending) && q.pending[n].ID < offset {
			n++
		}
	case offset < 0:
		n = max(0, len(q.pending)+int(offset))
	}
	for _, u := range q.pending[:n] {
		u.Confirmed = true
	}
	q.pending = slices.Delete(q.pending, 0, n)
}

// take returns up to limit pending updates as getUpdates delivers them,
// counting the delivery.
func (q *updateQueue) take(limit int) []any {
	batch := make([]any, 0, min(limit, len(q.pending)))
	for _, u := range q.pending[:min(limit, len(q.pending))] {
		u.Deliveries++
		batch = append(batch, map[string]any{"update_id": u.ID, u.Kind: u.payload})
	}
	return batch
}

// queueLocked queues an update for the bot, if allowed_updates lets it,
// and returns its id.
func (s *Server) queueLocked(u Update, payload any) (id int64, queued bool) {
	if !s.updates.allows(u.Kind) {
		return 0, false
	}
	id = s.updates.add(u, payload)
	s.core.NotifyLocked()
	return id, true
}
