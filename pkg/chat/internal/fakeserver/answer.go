package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// FailMode is how a request AcceptThenFail took is answered.
type FailMode int

const (
	// Fail502 answers HTTP 502 with an HTML page, as the services' edges
	// do when the API behind them is slow or restarting.
	Fail502 FailMode = iota
	// FailCut resets the connection without any answer.
	FailCut
)

// Fail answers a request that was handled as mode says.
func (s *Server) Fail(w http.ResponseWriter, mode FailMode) {
	if mode == FailCut {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // a reset, not an orderly close
			}
			_ = c.Close()
			return
		}
		s.Logf("cannot hijack to cut the connection (%v); answering 502", err)
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>\n"))
}

// WaitSlow waits out SetSlow's delay; false when the client or the server
// went away meanwhile, and nobody is left to answer.
func (s *Server) WaitSlow(ctx context.Context) bool { return s.sleep(ctx, s.slowDelay()) }

func (s *Server) slowDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.slow
}

func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
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

// Slowed delays the answers of h under /api/ (not the socket's: it needs
// the raw connection) while SetSlow is on: the handler runs at once, its
// answer waits until it writes.
func (s *Server) Slowed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := s.slowDelay(); d > 0 && strings.HasPrefix(r.URL.Path, "/api/") {
			w = &slowWriter{ResponseWriter: w, wait: func() { s.sleep(r.Context(), d) }}
		}
		h.ServeHTTP(w, r)
	})
}

// slowWriter waits before the status line goes out.
type slowWriter struct {
	http.ResponseWriter
	wait   func()
	waited bool
}

func (w *slowWriter) before() {
	if !w.waited {
		w.waited = true
		w.wait()
	}
}

func (w *slowWriter) WriteHeader(status int) { w.before(); w.ResponseWriter.WriteHeader(status) }

func (w *slowWriter) Write(b []byte) (int, error) { w.before(); return w.ResponseWriter.Write(b) }

// Unwrap lets http.NewResponseController reach the connection (FailCut).
func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteJSON answers status with v; the Content-Type is application/json
// unless the handler set its own.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b := MustMarshal(v)
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// MustMarshal encodes the fake's own values, which always encode.
func MustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fakeserver: marshal %T: %v", v, err))
	}
	return b
}
