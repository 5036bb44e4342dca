package fakeserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	if sw, ok := w.(*slowWriter); ok {
		sw.before()
	}
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

func (s *Server) slowDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.slow
}

// sleep waits d, or less when the client or the server goes away.
func (s *Server) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.done:
	}
}

// Slowed delays the answers of h under /api/ (not the socket's: it needs
// the raw connection) while SetSlow is on: the handler runs at once, its
// answer waits until it writes, or cuts the connection (FailCut).
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

// ReadJSON decodes a request's JSON body; an empty one leaves v as it is.
func ReadJSON(r *http.Request, v any) error {
	err := json.NewDecoder(io.LimitReader(r.Body, MaxPayload)).Decode(v)
	// Read to the end: only then does net/http watch the connection and
	// cancel the request's context when the client leaves (a held post).
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxPayload))
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

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
