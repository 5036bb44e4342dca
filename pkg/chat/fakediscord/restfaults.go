package fakediscord

import (
	"net/http"
	"strings"
	"time"
)

// FailMode is how AcceptThenFail answers a message it stored.
type FailMode int

const (
	// FailBadGateway answers 502, as Discord's edge does when the API
	// behind it is slow or restarting.
	FailBadGateway FailMode = iota
	// FailCut closes the connection without an answer.
	FailCut
)

// AcceptThenFail makes the next n message POSTs succeed at the fake (the
// message is stored and MESSAGE_CREATE dispatched) and then fail as mode
// says: the client cannot tell whether its message went through.
func (s *Server) AcceptThenFail(n int, mode FailMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.acceptFail, s.faults.failMode = n, mode
}

// SetSlow delays every REST answer (not the gateway's) by d after the request was handled (a
// message POST is stored, then answered late); 0 ends it.
func (s *Server) SetSlow(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.slow = d
}

// HoldPosts makes every POST that creates something (a message, a thread)
// wait, before anything is stored, until Release. A held request whose client goes away meanwhile (a daemon killed
// during its request) stores nothing. Snapshot.Held counts the waiting ones.
func (s *Server) HoldPosts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.gate == nil {
		s.faults.gate = make(chan struct{})
	}
}

// Release lets every held POST go on and ends HoldPosts.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.gate != nil {
		close(s.faults.gate)
		s.faults.gate = nil
	}
}

// SetChannelUnknown makes a channel or thread answer 404 Unknown Channel
// (10003) to everything, as a deleted channel or thread or a wrong ID
// does, or brings it back. A channel's threads answer so with it.
func (s *Server) SetChannelUnknown(id string, unknown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if unknown {
		s.faults.unknown[id] = true
	} else {
		delete(s.faults.unknown, id)
	}
}

// SetManageThreads gives a bot token Discord's Manage Threads permission
// (every token has it at the start) or takes it away. Without it a thread
// PATCH that sets locked is refused 403 Missing Permissions (50013) and
// changes nothing; archiving the bot's own thread is still allowed.
func (s *Server) SetManageThreads(token string, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if allowed {
		delete(s.faults.noManage, token)
	} else {
		s.faults.noManage[token] = true
	}
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
	ok := false
	select {
	case <-gate:
		ok = r.Context().Err() == nil
	case <-r.Context().Done():
	case <-s.done:
	}
	s.mu.Lock()
	s.held--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}

// takeAcceptFailLocked consumes one pending accept-then-fail, if any.
func (s *Server) takeAcceptFailLocked() (FailMode, bool) {
	if s.faults.acceptFail <= 0 {
		return 0, false
	}
	s.faults.acceptFail--
	return s.faults.failMode, true
}

// failAccepted answers a stored message as mode says.
func (s *Server) failAccepted(w http.ResponseWriter, mode FailMode) {
	if mode == FailCut {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = c.Close()
			return
		}
		s.logf("cannot hijack to cut the connection (%v); answering 502", err)
	}
	// Discord's edge answers 502 with an HTML page, not JSON.
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>\n"))
}

// slowed delays the answer of every request while SetSlow is on: the
// handler runs at once, its answer waits.
func (s *Server) slowed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		d := s.faults.slow
		s.mu.Unlock()
		if d > 0 && strings.HasPrefix(r.URL.Path, "/api/") { // not the socket: it needs the raw connection
			w = &slowWriter{ResponseWriter: w, d: d, r: r, done: s.done}
		}
		h.ServeHTTP(w, r)
	})
}

// slowWriter waits before the status line goes out.
type slowWriter struct {
	http.ResponseWriter
	d      time.Duration
	r      *http.Request
	done   <-chan struct{}
	waited bool
}

func (w *slowWriter) wait() {
	if w.waited {
		return
	}
	w.waited = true
	t := time.NewTimer(w.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.r.Context().Done():
	case <-w.done:
	}
}

func (w *slowWriter) WriteHeader(status int) { w.wait(); w.ResponseWriter.WriteHeader(status) }

func (w *slowWriter) Write(b []byte) (int, error) { w.wait(); return w.ResponseWriter.Write(b) }

// Unwrap lets http.NewResponseController reach the connection (FailCut).
func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
