package fakeserver

import (
	"context"
	"net/http"
	"strings"
	"time"
)

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

// slowed delays the answers of h under Config.APIPrefix (not the socket's: it needs
// the raw connection) while SetSlow is on: the handler runs at once, its
// answer waits until it writes, or cuts the connection (FailCut).
func (s *Server) slowed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		d := s.faults.slow
		s.mu.Unlock()
		if d > 0 && strings.HasPrefix(r.URL.Path, s.cfg.APIPrefix) {
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
