package relay

import (
	"context"

	"gjc.dev/reconciler/pkg/bus"
)

// For a poster whose lookups cannot tell two sessions' places apart
// (Poster.PlacesApart false), places are made one at a time, each to its
// end. A lookup of a place whose answer was lost must meet no other place
// in doubt: Telegram's id probe cannot tell two sessions' roots apart by
// where they lie (both in the chat itself, or in a forum's General
// topic), and its topic probe asks a topic by renaming it. So a root or
// thread request holds the
// relay's place turn from before its attempt until it is done, known
// never made, or given up; and a place whose attempt is pending from
// before a kill goes before any new one (the earliest attempt first), so
// a restarted relay never attempts a second place beside one in doubt.
// Roots are one per session, so the turn costs little, except in a storm
// of kills: each place in doubt then holds every new one back until its
// lookup can decide (Options.Settle after its attempt).
type placeTurn struct {
	busy   bool
	listed bool          // the outbox was listed once
	free   chan struct{} // closed, and cleared, when the turn may have become free
}

// takePlaceTurn waits for the turn of the place part rec, and returns
// the func that lets go of it; ctx's error if the relay stopped first.
func (r *Relay) takePlaceTurn(ctx context.Context, rec bus.Record) (func(), error) {
	for {
		r.mu.Lock()
		if !r.turn.busy && r.placeMayGoLocked(rec) {
			r.turn.busy = true
			r.mu.Unlock()
			return r.letGoPlaceTurn, nil
		}
		if r.turn.free == nil {
			r.turn.free = make(chan struct{})
		}
		free := r.turn.free
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-free:
		}
	}
}

func (r *Relay) letGoPlaceTurn() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turn.busy = false
	r.placeTurnMayBeFreeLocked()
}

// placeTurnMayBeFreeLocked wakes the places waiting for the turn: it was
// let go of, the outbox was listed, or a message left it.
func (r *Relay) placeTurnMayBeFreeLocked() {
	if r.turn.free != nil {
		close(r.turn.free)
		r.turn.free = nil
	}
}

// placeMayGoLocked says whether the place part rec may be requested now:
// the outbox was listed once (so every message with a place in doubt is
// known), and no other session has a place in doubt (attempted, not done,
// of a message still in the outbox, of its current generation) that comes
// first. Sessions are ranked by their earliest place in doubt, whichever
// message it is of: a session's worker takes its messages in id order,
// so ranking one message's request could wait for a place that only a
// later message of another waiting session would resolve. A session with
// none in doubt comes after every one that has. A message that left the
// outbox holds back nothing: no lookup of it is coming.
func (r *Relay) placeMayGoLocked(rec bus.Record) bool {
	if !r.turn.listed {
		return false
	}
	mine, minePending := r.firstInDoubtLocked(rec.Session)
	for k, a := range r.st.attempts {
		if a.rec.Session == rec.Session || !r.inDoubtLocked(k, a) {
			continue
		}
		if !minePending || a.before(mine) {
			return false
		}
	}
	return true
}

// firstInDoubtLocked is session's earliest place in doubt, if it has one.
func (r *Relay) firstInDoubtLocked(session string) (attempt, bool) {
	var first attempt
	found := false
	for k, a := range r.st.attempts {
		if a.rec.Session != session || !r.inDoubtLocked(k, a) {
			continue
		}
		if !found || a.before(first) {
			first, found = a, true
		}
	}
	return first, found
}

// before orders places in doubt: the earlier attempt first, then by key.
func (a attempt) before(b attempt) bool {
	return a.rec.At < b.rec.At || a.rec.At == b.rec.At && a.rec.Key() < b.rec.Key()
}

// inDoubtLocked says whether attempt a (of key k) is a place in doubt
// that a lookup is still coming for.
func (r *Relay) inDoubtLocked(k string, a attempt) bool {
	if !r.st.currentPlace(a.rec) {
		return false
	}
	if _, done := r.st.done[k]; done {
		return false
	}
	_, live := r.known[a.rec.ID+".json"]
	return live
}

// currentPlace says whether rec is of a root or thread of its session's
// current generation: one of a place since deleted and made again is
// never looked up again, and holds back nothing.
func (s *state) currentPlace(rec bus.Record) bool {
	_, gen, ok := bus.ParsePlacePart(rec.Part)
	if !ok {
		return false
	}
	ss, known := s.sessions[rec.Session]
	return !known || gen >= ss.gen
}
