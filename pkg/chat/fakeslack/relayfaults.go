package fakeslack

import (
	"context"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// FailMode is how an accepted post (createMethods) is then answered: 502 with
// an HTML page as Slack's edge sends (Fail502), or a reset (FailCut).
type FailMode = fakeserver.FailMode

// The FailModes.
const Fail502, FailCut = fakeserver.Fail502, fakeserver.FailCut

// Hold is a post (createMethods) held before it is stored: Arrived is closed
// once it reached the fake, and Release lets it go on.
type Hold = fakeserver.Hold

// HoldNextPost holds the next post (chat.postMessage or
// files.completeUploadExternal) before anything is stored
// until Release (or Close, which drops it unstored); once released it is
// stored and answered, whether or not its client is still there (a
// service does not know). One hold at a time: a new one replaces a hold
// no request has taken yet.
func (s *Server) HoldNextPost() *Hold {
	h := fakeserver.NewHold()
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
	s.logf("post held")
	return s.core.WaitAt(context.Background(), h) // the client's leaving changes nothing
}
