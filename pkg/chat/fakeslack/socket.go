package fakeslack

import (
	"encoding/json"
	"net/http"
	"strings"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// conn is one Socket Mode websocket. Its own goroutine reads acks; the
// Socket's writer is the only one to write, pings included.
type conn struct {
	*fakeserver.Socket

	// Guarded by Server.mu.
	id       int // order of arrival, to take turns in
	appToken string
	hello    bool // hello sent: envelopes may go out
	closing  bool // cut or cutting: send nothing more, count it gone
	deaf     bool // open and pinged, but events sent to it never arrive
}

// serveSocket accepts a socket for a ticket from apps.connections.open.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	token, ok := s.tickets[ticket]
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !ok {
		http.Error(w, "invalid ticket", http.StatusUnauthorized)
		return
	}
	sock, err := s.core.Upgrade(w, r, fakeserver.Pinger{Every: s.opts.PingInterval, On: s.pings.Load})
	if err != nil {
		return
	}
	c := &conn{Socket: sock, appToken: token}
	s.mu.Lock()
	if s.core.ShutLocked() || s.faults.rejected[token] {
		s.mu.Unlock()
		sock.Finish()
		return
	}
	s.sweepLocked(token)
	s.connSeq++
	c.id = s.connSeq
	s.conns[c] = struct{}{}
	st := s.appLocked(token)
	st.Connections++
	st.Up()
	s.core.LaterLocked(c.Socket, s.faults.helloDelay, func() { s.helloLocked(c) })
	s.notifyLocked()
	s.mu.Unlock()
	s.logf("socket from %s", r.RemoteAddr)

	s.readLoop(c)

	s.mu.Lock()
	s.goneLocked(c)
	delete(s.conns, c)
	s.notifyLocked()
	s.mu.Unlock()
	c.Finish()
}

// helloLocked greets the socket and hands it the app's undelivered envelopes.
func (s *Server) helloLocked(c *conn) {
	if c.closing {
		return
	}
	c.hello = true
	// num_connections is the app's open sockets now, this one included:
	// one whose peer left during the hello delay no longer counts.
	s.sweepLocked(c.appToken)
	s.sendLocked(c, map[string]any{
		"type":            "hello",
		"num_connections": s.apps[c.appToken].Live,
		"debug_info": map[string]any{
			"host": "fakeslack", "build_number": 1, "approximate_connection_time": 18060,
		},
		"connection_info": map[string]string{"app_id": s.opts.AppID},
	})
	for _, e := range s.envelopes {
		if e.AppToken == c.appToken && !e.Acked && !e.GaveUp && e.conn == nil {
			s.deliverLocked(e)
		}
	}
	s.notifyLocked()
}

// readLoop records acks; a socket sends nothing else that matters.
func (s *Server) readLoop(c *conn) {
	for {
		_, data, err := c.WS.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			s.logf("ignoring socket message %.80s", strings.TrimSpace(string(data)))
			continue
		}
		s.ackFrame(ack.EnvelopeID)
	}
}

// goneLocked stops counting c as open and frees its unacked envelopes for
// another socket of the app, or the app's next hello; one whose retries
// are spent is given up.
func (s *Server) goneLocked(c *conn) {
	if c.closing {
		return
	}
	c.closing = true
	s.apps[c.appToken].Live--
	for _, e := range s.envelopes {
		if e.conn != c {
			continue
		}
		s.disarmLocked(e)
		e.conn = nil
		switch {
		case e.Acked, e.GaveUp:
		case e.Deliveries > maxRetries:
			s.giveUpLocked(e)
		default:
			s.deliverLocked(e)
		}
	}
}

// sweepLocked stops counting the sockets whose peer has already gone (of
// one app, or of all when token is empty): the counts are exact at every
// look, not only once each reader has seen its EOF.
func (s *Server) sweepLocked(token string) {
	for c := range s.conns {
		if (token == "" || c.appToken == token) && !c.closing && c.Gone() {
			s.goneLocked(c)
			s.notifyLocked()
		}
	}
}

// sendLocked queues a message; under s.mu so delivery order is queue order.
func (s *Server) sendLocked(c *conn, v any) {
	if !c.closing && !c.Send(fakeserver.MustMarshal(v)) {
		s.logf("socket client too slow, cutting it")
		s.goneLocked(c)
		c.Abort()
	}
}
