package fakeslack

import "gjc.dev/reconciler/pkg/chat/internal/fakeserver"

// FailMode is how an accepted chat.postMessage is then answered.
type FailMode = fakeserver.FailMode

const (
	// Fail502 answers HTTP 502 with an HTML body, as Slack's edge does.
	Fail502 = fakeserver.Fail502
	// FailCut closes the connection (with a reset) without any answer.
	FailCut = fakeserver.FailCut
)

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
	case <-s.core.Done():
		return false
	}
}
