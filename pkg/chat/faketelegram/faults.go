package faketelegram

import (
	"context"
	"strings"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// FailMode is how a faulty request is answered: 502 with an HTML page, as
// the service's edge sends (Fail502), or a reset without an answer (FailCut).
type FailMode = fakeserver.FailMode

// The FailModes.
const Fail502, FailCut = fakeserver.Fail502, fakeserver.FailCut

// Hold is a request held before it runs: Arrived is closed once it
// reached the fake, and Release lets it go on.
type Hold = fakeserver.Hold

// faults are Telegram's switches; guarded by Server.mu.
type faults struct {
	before, after map[string]*methodFault // by lower-case method
	holds         map[string]*Hold
	revoked       bool
	outage        bool
	dropPoll      bool // cut the next getUpdates (DropConnections)
}

// methodFault fails the next n calls of a method.
type methodFault struct {
	n    int
	mode FailMode
}

func newFaults() faults {
	return faults{before: map[string]*methodFault{}, after: map[string]*methodFault{}, holds: map[string]*Hold{}}
}

// FailBefore makes the next n calls of a method (its Bot API name, like
// "sendMessage") fail before they run: nothing is stored, and the call is
// answered as mode says (FailCut: dropped; Fail502: a 5xx).
func (s *Server) FailBefore(method string, n int, mode FailMode) {
	s.setFault(s.faults.before, method, n, mode)
}

// FailAfter makes the next n calls of a method that succeed fail after
// they ran: what they did is stored, and they are answered as mode says
// (FailCut: accepted then reset; Fail502). The shared AcceptThenFail is
// FailAfter of the next message posted, sendMessage or sendDocument;
// both count down. For getUpdates it is
// the next n answers (with updates or empty): lost on the way, their
// updates stay unconfirmed and come again.
func (s *Server) FailAfter(method string, n int, mode FailMode) {
	s.setFault(s.faults.after, method, n, mode)
}

func (s *Server) setFault(set map[string]*methodFault, method string, n int, mode FailMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set[strings.ToLower(method)] = &methodFault{n: n, mode: mode}
}

// takeFault consumes one fault of a method's call, if any is left: one
// of FailAfter's (or, for a message post, AcceptThenFail's) when ran, else
// one of FailBefore's.
func (s *Server) takeFault(method string, ran bool) (FailMode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.faults.before
	if ran {
		set = s.faults.after
		if isMessagePost(method) {
			if mode, hit := s.core.TakeAcceptFailLocked(); hit {
				return mode, true
			}
		}
	}
	f := set[method]
	if f == nil || !fakeserver.Take(&f.n) {
		return 0, false
	}
	return f.mode, true
}

// HoldMessages is HoldNext's name for the next message the bot posts,
// text or file.
const HoldMessages = "messages"

// HoldNext holds the next call of a method before it runs until Release
// (or Close, which drops it); once released it runs and is answered,
// whether or not its client is still there, as the Bot API server goes
// on with a request whose client left. Method "" holds the next post:
// sendMessage, sendDocument or createForumTopic; HoldMessages the next
// message posted: sendMessage or sendDocument. A new hold of a method
// replaces one no call has taken yet.
func (s *Server) HoldNext(method string) *Hold {
	h := fakeserver.NewHold()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.holds[strings.ToLower(method)] = h
	return h
}

// waitHold takes a method's pending hold, if any, and waits for its
// release; false when the server closed first.
func (s *Server) waitHold(method string) bool {
	s.mu.Lock()
	key := method
	if s.faults.holds[key] == nil && isMessagePost(method) {
		key = HoldMessages
	}
	if s.faults.holds[key] == nil && (isMessagePost(method) || method == "createforumtopic") {
		key = ""
	}
	h := s.faults.holds[key]
	delete(s.faults.holds, key)
	s.mu.Unlock()
	if h == nil {
		return true
	}
	s.logf("%s held", method)
	return s.core.WaitAt(context.Background(), h) // the client's leaving changes nothing
}
