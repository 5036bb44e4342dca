package fakeslack

import (
	"maps"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

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
	n := s.core.Cut(func() []*fakeserver.Socket { return s.cutLocked("") })
	s.logf("dropped %d sockets", n)
	return n
}

// cutLocked counts gone every socket of an app token (of all when token
// is empty) and returns them to cut.
func (s *Server) cutLocked(token string) (cut []*fakeserver.Socket) {
	for c := range s.conns {
		if token == "" || c.appToken == token {
			s.goneLocked(c)
			cut = append(cut, c.Socket)
		}
	}
	return cut
}

// Deafen makes every socket open now deaf: it stays open, answers pings
// and looks healthy, but no event sent to it arrives (as a connection
// Slack's side forgot can). Sockets opened later hear again. It returns
// how many it deafened.
func (s *Server) Deafen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if !c.closing {
			c.deaf = true
			n++
		}
	}
	return n
}

// SetPings stops websocket pings (socketmode then reconnects after its
// ping interval) or starts them again.
func (s *Server) SetPings(on bool) { s.pings.Store(on) }

// SetTokenRejected revokes a bot or app token or restores it. While revoked,
// every Web API call with it answers invalid_auth and its sockets are cut, so
// socketmode's reconnect ends in apps.connections.open failing.
func (s *Server) SetTokenRejected(token string, rejected bool) {
	if !rejected {
		s.core.Toggle(s.faults.rejected, token, false)
		return
	}
	s.core.Cut(func() []*fakeserver.Socket {
		s.faults.rejected[token] = true
		maps.DeleteFunc(s.tickets, func(_, tok string) bool { return tok == token })
		return s.cutLocked(token)
	})
}

// SetHelloDelay makes each new socket wait this long before hello.
func (s *Server) SetHelloDelay(d time.Duration) { fakeserver.Set(s.core, &s.faults.helloDelay, d) }

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
func (s *Server) LoseAcks(n int) { fakeserver.Set(s.core, &s.faults.lostAcks, n) }
