package fakeserver

import (
	"net"
	"net/http"
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
		w = sw.ResponseWriter // the log's writer, which slowed wraps
	}
	if mode == FailCut {
		if lw, ok := w.(*logged); ok {
			lw.answer(0) // no status line goes out
		}
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
