package fakediscord

import (
	"net/http"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// FailMode is how AcceptThenFail answers a message it stored: 502 with an
// HTML page as Discord's edge sends (FailBadGateway), or a reset (FailCut).
type FailMode = fakeserver.FailMode

// The FailModes.
const FailBadGateway, FailCut = fakeserver.Fail502, fakeserver.FailCut

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
	s.mu.Unlock()
	if gate == nil {
		return true
	}
	s.logf("holding %s %s", r.Method, r.URL.Path)
	return s.core.WaitAt(r.Context(), gate)
}
