package fakediscord

import "slices"

// heldResume is a RESUME kept unanswered by HoldResumes.
type heldResume struct {
	c *conn
	d resumeData
}

// HoldResumes makes each RESUME that arrives from now on wait, unanswered,
// until ReleaseResumes: the websocket is open, HELLO sent and the RESUME
// read, but its session stays away, so what is dispatched meanwhile only
// goes to the session's backlog. The release then answers as Discord
// answers a RESUME after missed events: the missed dispatches, in order,
// then RESUMED. A test thereby sends an event provably after a client
// left and before its RESUME was answered, so only the replay can
// deliver it. TokenStats.HeldResumes counts the RESUMEs waiting.
func (s *Server) HoldResumes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.holdResumes = true
}

// ReleaseResumes answers the held RESUMEs in the order they came and ends
// HoldResumes.
func (s *Server) ReleaseResumes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.faults.heldResumes
	s.faults.holdResumes, s.faults.heldResumes = false, nil
	for _, h := range held {
		s.statsLocked(h.d.Token).HeldResumes--
		s.logf("answering the held RESUME of %q", h.d.SessionID)
		s.resumeLocked(h.c, h.d)
	}
	s.notifyLocked()
}

// holdResumeLocked keeps a RESUME for ReleaseResumes while HoldResumes is
// on, and says whether it did.
func (s *Server) holdResumeLocked(c *conn, d resumeData) bool {
	if !s.faults.holdResumes || c.closing {
		return false
	}
	s.faults.heldResumes = append(s.faults.heldResumes, heldResume{c: c, d: d})
	s.statsLocked(d.Token).HeldResumes++
	s.logf("holding the RESUME of %q", d.SessionID)
	s.notifyLocked()
	return true
}

// dropHeldLocked forgets the held RESUMEs of a connection that has gone:
// there is no one left to answer.
func (s *Server) dropHeldLocked(c *conn) {
	s.faults.heldResumes = slices.DeleteFunc(s.faults.heldResumes, func(h heldResume) bool {
		if h.c == c {
			s.statsLocked(h.d.Token).HeldResumes--
			return true
		}
		return false
	})
}
