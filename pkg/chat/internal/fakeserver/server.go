package fakeserver

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Config is what a fake tells its skeleton.
type Config struct {
	// Name prefixes the log lines and errors, like "fakediscord".
	Name string
	// Host is the address to listen on: 127.0.0.1 when empty.
	Host string
	// Mu is the fake's lock: it guards the fake's state and the Server's.
	Mu *sync.Mutex
	// Logf, if set, receives one line per protocol step.
	Logf func(format string, args ...any)
	// Drop cuts every socket of the fake and says how many; an outage
	// (Faults.SetUnavailable) begins with it.
	Drop func() int
	// APIPrefix is the path prefix of the answers SetSlow delays: "/api/"
	// when empty (Telegram's Bot API lives under "/bot<token>/").
	APIPrefix string
}

// Server listens, serves a fake's handler and closes it down.
type Server struct {
	cfg  Config
	mu   *sync.Mutex
	ln   net.Listener
	http *http.Server
	done chan struct{}  // closed by Close: held and slowed requests give up
	wg   sync.WaitGroup // every request and connection in flight

	// Guarded by mu.
	closed      bool
	changed     signal
	faults      Faults
	requests    []Request // the log, bounded
	rateLimited int       // 429s answered, counted by the log
	posts, held int       // posts received, requests waiting at a Hold
	oracle      oracle
}

// Listen takes an ephemeral port of cfg.Host; Serve starts answering on it.
func Listen(cfg Config) (*Server, error) {
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if cfg.APIPrefix == "" {
		cfg.APIPrefix = "/api/"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("%s: listen: %w", cfg.Name, err)
	}
	s := &Server{cfg: cfg, mu: cfg.Mu, ln: ln, done: make(chan struct{}), oracle: oracle{stored: map[string]int{}}}
	s.faults = Faults{s: s}
	return s, nil
}

// Serve answers with h until Close, its answers slowed by SetSlow.
func (s *Server) Serve(h http.Handler) {
	s.http = &http.Server{Handler: s.track(s.slowed(h)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(s.ln) }()
}

// URL is the base address, like http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// ClosedLocked says whether Close has begun: a timer that fires late must
// change nothing.
func (s *Server) ClosedLocked() bool { return s.closed }

// Faults are the switches every fake has; a fake embeds them to export them.
func (s *Server) Faults() *Faults { return &s.faults }

// Close stops the server: closing runs under the lock, once, and returns the
// sockets to cut; Close returns when every request and socket handler has
// ended, so a test's Logf is never called after it. It reports false when
// the server was closed already.
func (s *Server) Close(closing func() []*Socket) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	close(s.done)
	cut := closing()
	s.NotifyLocked()
	s.mu.Unlock()

	_ = s.http.Close()
	for _, c := range cut {
		c.Abort()
	}
	s.wg.Wait()
	return true
}

// track counts each request in s.wg, because http.Server.Close neither waits
// for handlers nor knows about hijacked websocket connections, and logs it.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			http.Error(w, "closed", http.StatusServiceUnavailable)
			return
		}
		s.wg.Add(1)
		s.mu.Unlock()
		defer s.wg.Done()
		lw := &logged{ResponseWriter: w, s: s, req: Request{Method: r.Method, Path: r.URL.Path, At: time.Now()}}
		defer lw.answer(http.StatusOK) // what net/http sends for a handler that wrote nothing
		h.ServeHTTP(lw, r)
	})
}

// Logf logs one protocol step, if the fake was given a Logf.
func (s *Server) Logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(s.cfg.Name+": "+format, args...)
	}
}
