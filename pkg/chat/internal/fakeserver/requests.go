package fakeserver

import (
	"bufio"
	"net"
	"net/http"
	"slices"
	"time"
)

// Request is one request a fake answered, as its log keeps it.
type Request struct {
	Method string
	Path   string // without the query: the route with its IDs
	// Status is the answer's: 101 for a websocket, 0 for a connection cut
	// without one (FailCut).
	Status int
	At     time.Time // when it arrived
}

// maxRequests bounds the log of a long run (the demo): the newest are kept.
const maxRequests = 10000

// Requests returns the log, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// logged is a request's answer: it enters the log when its status line is
// decided (before a slow answer's wait), so every 429 is counted before
// its client can see it. The fakes count no 429 themselves.
type logged struct {
	http.ResponseWriter
	s   *Server
	req Request
}

func (w *logged) answer(status int) {
	if w.s == nil {
		return // logged already
	}
	s := w.s
	w.s, w.req.Status = nil, status
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == maxRequests {
		s.requests = s.requests[1:]
	}
	s.requests = append(s.requests, w.req)
	if status == http.StatusTooManyRequests {
		s.rateLimited++
		s.NotifyLocked()
	}
}

func (w *logged) WriteHeader(status int) { w.answer(status); w.ResponseWriter.WriteHeader(status) }

func (w *logged) Write(b []byte) (int, error) {
	w.answer(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Hijack takes the connection for a websocket (gorilla asks for the
// interface itself) or for a cut, which Fail has logged already.
func (w *logged) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.answer(http.StatusSwitchingProtocols)
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.NewResponseController reach the connection.
func (w *logged) Unwrap() http.ResponseWriter { return w.ResponseWriter }
