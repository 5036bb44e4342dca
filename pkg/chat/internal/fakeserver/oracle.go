package fakeserver

import "slices"

// Observed is what the skeleton judges for every fake, as each fake's
// Snapshot carries it: the promises the fakes are there to check in one
// shape, whatever the service.
type Observed struct {
	RateLimited int // 429s answered, whichever fault or limit answered them
	// Posts counts the posts received (Posted), answered or not; Held
	// those waiting at a Hold now.
	Posts, Held int
	// Relayed counts the relay's message IDs stored (Discord's nonce, the
	// key in Slack's metadata); Duplicates are those stored more than once:
	// each of the relay's messages is to be posted exactly once.
	Relayed    int
	Duplicates []string
}

// oracle counts the posts stored by the relay's ID for them.
type oracle struct {
	stored map[string]int // by relay ID: how many times a post with it was stored
	dups   []string       // the IDs stored more than once, as the second came
}

// StoredLocked counts a post stored under the relay's ID for it; a post
// without one is not the relay's. A delete does not uncount it: stored
// twice is posted twice.
func (s *Server) StoredLocked(id string) {
	if id == "" {
		return
	}
	if s.oracle.stored[id]++; s.oracle.stored[id] == 2 {
		s.oracle.dups = append(s.oracle.dups, id)
	}
}

// ObservedLocked is what the skeleton observed so far.
func (s *Server) ObservedLocked() Observed {
	return Observed{RateLimited: s.rateLimited, Posts: s.posts, Held: s.held, Relayed: len(s.oracle.stored), Duplicates: slices.Clone(s.oracle.dups)}
}

// Posted counts a post received, before anything about it is decided.
func (s *Server) Posted() { s.count(&s.posts, 1) }

// count changes one of the oracle's counts and wakes the waiters.
func (s *Server) count(n *int, by int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*n += by
	s.NotifyLocked()
}

// Sessions counts one token's live sessions: a session is live from its
// greeting until its socket is gone, and MaxLive above 1 breaks the
// promise that one bot has one connection.
type Sessions struct {
	Live    int // live now
	MaxLive int // the most ever live at once
}

// Entry returns the counts kept under key, new ones the first time.
func Entry[K comparable, V any](m map[K]*V, key K) *V {
	if m[key] == nil {
		m[key] = new(V)
	}
	return m[key]
}

// Up counts a session going live.
func (l *Sessions) Up() {
	l.Live++
	l.MaxLive = max(l.MaxLive, l.Live)
}
