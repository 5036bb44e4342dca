package fakeslack

import "time"

// faults are the switches a test flips; guarded by Server.mu (pings aside).
type faults struct {
	rejected   map[string]bool // tokens treated as revoked
	helloDelay time.Duration
	hold       *Hold // holds the next chat.postMessage
	lostAcks   int   // how many more ack frames are dropped unread
}

// DropConnections cuts every socket without a close frame, as a network
// failure would, and returns how many it cut.
func (s *Server) DropConnections() int {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		s.goneLocked(c)
		conns = append(conns, c)
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.Abort()
	}
	s.logf("dropped %d sockets", len(conns))
	return len(conns)
}

// SetPings stops websocket pings (socketmode then reconnects after its
// ping interval) or starts them again.
func (s *Server) SetPings(on bool) { s.pings.Store(on) }

// SetTokenRejected revokes a bot or app token or restores it. While revoked,
// every Web API call with it answers invalid_auth and its sockets are cut, so
// socketmode's reconnect ends in apps.connections.open failing.
func (s *Server) SetTokenRejected(token string, rejected bool) {
	s.mu.Lock()
	if !rejected {
		delete(s.faults.rejected, token)
		s.mu.Unlock()
		return
	}
	s.faults.rejected[token] = true
	var cut []*conn
	for c := range s.conns {
		if c.appToken == token {
			s.goneLocked(c)
			cut = append(cut, c)
		}
	}
	for ticket, tok := range s.tickets {
		if tok == token {
			delete(s.tickets, ticket)
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range cut {
		c.Abort()
	}
}

// SetHelloDelay makes each new socket wait this long before hello.
func (s *Server) SetHelloDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.helloDelay = d
}

// SendDisconnect sends a disconnect (refresh_requested) to every socket that
// has had its hello, as Slack does before it recycles a connection, and
// returns how many it told. socketmode reconnects on it.
func (s *Server) SendDisconnect() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.hello && !c.closing {
			s.sendLocked(c, map[string]any{
				"type": "disconnect", "reason": "refresh_requested",
				"debug_info": map[string]string{"host": "fakeslack"},
			})
			n++
		}
	}
	return n
}

// LoseAcks drops the next n ack frames as if they never arrived, so their
// envelopes are retried after the ack timeout, as Slack retries an event
// whose ack was lost on the way: the client sees the same envelope again.
func (s *Server) LoseAcks(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.lostAcks = n
}

// takeLostAckLocked says whether the ack frame just read is to be lost.
func (s *Server) takeLostAckLocked() bool {
	if s.faults.lostAcks <= 0 {
		return false
	}
	s.faults.lostAcks--
	return true
}
