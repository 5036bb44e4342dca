package fakeserver

import "slices"

// Oracle keeps the promises the fakes are there to judge, in one shape for
// every service: each of the relay's messages stored once, and never two
// sessions of one token live at once. Guarded by the fake's lock.
type Oracle struct {
	stored map[string]int // by relay id: how many times a post with it was stored
	dups   []string       // the ids stored more than once, as the second came
}

// StoredLocked counts a post stored under the relay's id for it (Discord's
// nonce, the key in Slack's metadata); a post without one is not the relay's.
// A delete does not uncount it: stored twice is posted twice.
func (o *Oracle) StoredLocked(id string) {
	if id == "" {
		return
	}
	if o.stored == nil {
		o.stored = map[string]int{}
	}
	if o.stored[id]++; o.stored[id] == 2 {
		o.dups = append(o.dups, id)
	}
}

// RelayedLocked is how many relay ids were stored, once or more.
func (o *Oracle) RelayedLocked() int { return len(o.stored) }

// DuplicatesLocked are the relay ids stored more than once.
func (o *Oracle) DuplicatesLocked() []string { return slices.Clone(o.dups) }

// Sessions counts one token's live sessions: a session is live from its
// greeting until its socket is gone, and MaxLive above 1 breaks the
// promise that one bot has one connection.
type Sessions struct {
	Live    int // live now
	MaxLive int // the most ever live at once
}

// Up counts a session going live.
func (l *Sessions) Up() {
	l.Live++
	l.MaxLive = max(l.MaxLive, l.Live)
}
