package fakediscord

import (
	"net/http"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// FailMode is how AcceptThenFail answers a message it stored.
type FailMode = fakeserver.FailMode

const (
	// FailBadGateway answers 502, as Discord's edge does when the API
	// behind it is slow or restarting.
	FailBadGateway = fakeserver.Fail502
	// FailCut resets the connection without an answer.
	FailCut = fakeserver.FailCut
)

// HoldPosts makes every POST that creates something (a message, a thread)
// wait, before anything is stored, until Release. A held request whose client goes away meanwhile (a daemon killed
// during its request) stores nothing. Snapshot.Held counts the waiting ones.
func (s *Server) HoldPosts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.gate == nil {
		s.faults.gate = fakeserver.NewHold()
	}
}

// Release lets every held POST go on and ends HoldPosts.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.gate != nil {
		s.faults.gate.Release()
		s.faults.gate = nil
	}
}

// SetChannelUnknown makes a channel or thread answer 404 Unknown Channel
// (10003) to everything, as a deleted channel or thread or a wrong ID
// does, or brings it back. A channel's threads answer so with it.
func (s *Server) SetChannelUnknown(id string, unknown bool) {
	s.core.Toggle(s.faults.unknown, id, unknown)
}

// hold waits at the HoldPosts gate, if one is up. It reports false when the
// request should be dropped unanswered: its client left or the server closed.
func (s *Server) hold(r *http.Request) bool {
	s.mu.Lock()
	gate := s.faults.gate
	if gate == nil {
		s.mu.Unlock()
		return true
	}
	s.held++
	s.notifyLocked()
	s.mu.Unlock()
	s.logf("holding %s %s", r.Method, r.URL.Path)
	ok := s.core.WaitAt(r.Context(), gate)
	s.mu.Lock()
	s.held--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}
