package fakediscord

import "time"

// opReconnect asks a client to reconnect and RESUME (Discord sends it
// before it moves a session to another machine).
const opReconnect = 7

// AskReconnect sends op 7 RECONNECT on every live connection and returns
// how many it asked. The sessions stay resumable; the connections stay
// open until the client closes them, as on Discord.
func (s *Server) AskReconnect() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.eachLiveLocked(func(c *conn) { s.sendLocked(c, control{Op: opReconnect}) })
	s.logf("asked %d gateway connections to reconnect", n)
	return n
}

// InvalidateSessions sends op 9 INVALID_SESSION on every live connection
// and returns how many it sent. The connection stays open with no session
// on it: the client may IDENTIFY on it, or (resumable) RESUME the session,
// which is kept only then; a session not resumable is over for good.
func (s *Server) InvalidateSessions(resumable bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.sess == nil || c.closing {
			continue
		}
		sess := c.sess
		sess.conn, sess.awaySince = nil, time.Now()
		c.sess = nil
		s.statsLocked(c.token).Live--
		if !resumable {
			delete(s.sessions, sess.id)
		}
		s.sendLocked(c, control{Op: opInvalidSession, D: resumable})
		n++
	}
	s.logf("invalidated %d gateway sessions (resumable %v)", n, resumable)
	s.notifyLocked()
	return n
}

// Deafen makes every live connection deaf: it stays open, heartbeats are
// ACKed and it looks healthy, but no dispatch sent to its session arrives
// (as a connection the service's side forgot can). The dispatches are
// kept in the session's backlog, so a RESUME on a new connection replays
// them; connections opened later hear again. It returns how many it
// deafened.
func (s *Server) Deafen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.eachLiveLocked(func(c *conn) { c.deaf = true })
	s.logf("deafened %d gateway connections", n)
	return n
}

// RequestHeartbeat sends op 1 HEARTBEAT on every live connection, as
// Discord does when it wants a heartbeat at once, and returns how many it
// asked. A client answers without waiting for its interval, with its last
// sequence number (TokenStats.Heartbeats and HeartbeatSeq show it).
func (s *Server) RequestHeartbeat() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.eachLiveLocked(func(c *conn) { s.sendLocked(c, control{Op: opHeartbeat}) })
	s.logf("asked %d gateway connections for a heartbeat", n)
	return n
}

// eachLiveLocked calls fn on every identified connection not closing, and
// returns how many.
func (s *Server) eachLiveLocked(fn func(c *conn)) int {
	n := 0
	for c := range s.conns {
		if c.sess != nil && !c.closing {
			fn(c)
			n++
		}
	}
	return n
}
