package fakeslack

import (
	"context"
	"net"
	"net/http"
	"time"
)

// FailMode is how an accepted chat.postMessage is then answered.
type FailMode int

const (
	// Fail502 answers HTTP 502 with an HTML body, as Slack's edge does.
	Fail502 FailMode = iota
	// FailCut closes the connection (with a reset) without any answer.
	FailCut
)

// AcceptThenFail makes the next n chat.postMessage calls that would succeed
// store their message (and deliver its event) as usual, then answer as
// mode says instead of with the ts: the client cannot know that its post
// was accepted.
func (s *Server) AcceptThenFail(n int, mode FailMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.acceptFailN, s.faults.acceptFailMode = n, mode
}

// SetSlow delays every Web API answer by d (after the method ran, so a
// client that gives up early leaves its post stored); 0 ends it.
func (s *Server) SetSlow(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.slow = d
}

// Hold is a chat.postMessage held before it is stored.
type Hold struct {
	arrived, released chan struct{}
}

// Arrived is closed once the held request reached the fake.
func (h *Hold) Arrived() <-chan struct{} { return h.arrived }

// Release lets the held request go on: it is stored and answered, whether
// or not its client is still there (a service does not know). Release is
// idempotent.
func (h *Hold) Release() {
	select {
	case <-h.released:
	default:
		close(h.released)
	}
}

// HoldNextPost holds the next chat.postMessage before anything is stored
// until Release (or Close, which drops it unstored). One hold at a time:
// a new one replaces a hold no request has taken yet.
func (s *Server) HoldNextPost() *Hold {
	h := &Hold{arrived: make(chan struct{}), released: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.hold = h
	return h
}

// waitHold takes the pending hold, if any, and waits for its release;
// false when the server closed first.
func (s *Server) waitHold() bool {
	s.mu.Lock()
	h := s.faults.hold
	s.faults.hold = nil
	s.mu.Unlock()
	if h == nil {
		return true
	}
	s.logf("chat.postMessage held")
	close(h.arrived)
	select {
	case <-h.released:
		return true
	case <-s.done:
		return false
	}
}

// waitSlow applies SetSlow's delay; false when the client or server went away.
func (s *Server) waitSlow(ctx context.Context) bool {
	s.mu.Lock()
	d := s.faults.slow
	s.mu.Unlock()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

// takeAcceptFail consumes one accept-then-fail, if any is left.
func (s *Server) takeAcceptFail() (FailMode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.acceptFailN <= 0 {
		return 0, false
	}
	s.faults.acceptFailN--
	return s.faults.acceptFailMode, true
}

// failAnswer answers an accepted post as mode says.
func (s *Server) failAnswer(w http.ResponseWriter, mode FailMode) {
	if mode == Fail502 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("fakeslack: response writer cannot hijack") // net/http's HTTP/1 writer can
	}
	c, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, not an orderly close
	}
	_ = c.Close()
}
