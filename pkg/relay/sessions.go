package relay

import (
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/inbound"
)

// The inbound side asks the relay which thread is whose: only the
// journal proves that a thread is one the relay made.

// Loaded is closed once the relay rebuilt its state from its journal;
// SessionAt and OpenPlaces know nothing before.
func (r *Relay) Loaded() <-chan struct{} { return r.loaded }

// SessionAt returns the session whose thread (Discord thread id, Slack
// root ts) place is.
func (r *Relay) SessionAt(place string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		return "", false
	}
	s, ok := r.st.byThread[place]
	return s, ok
}

// OpenPlaces returns the thread of every session not closed, by session.
func (r *Relay) OpenPlaces() []inbound.Place {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st == nil {
		return nil
	}
	var out []inbound.Place
	for name, ss := range r.st.sessions {
		if ss.thread != "" && !ss.closed {
			out = append(out, inbound.Place{Session: name, ID: ss.thread})
		}
	}
	slices.SortFunc(out, func(a, b inbound.Place) int { return strings.Compare(a.Session, b.Session) })
	return out
}
