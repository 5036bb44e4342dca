package fakediscord

import "time"

// faults are the switches a test flips; guarded by Server.mu.
type faults struct {
	acks        bool            // answer heartbeats with op 11
	rejected    map[string]bool // tokens treated as revoked
	unavailable bool            // the socket endpoint answers 503
	readyDelay  time.Duration
	limitN      int // how many more POSTs get a 429
	limitAfter  time.Duration
	unknown     map[string]bool // channel and thread IDs that answer 10003
	noManage    map[string]bool // bot tokens without Manage Threads
	replayAll   bool            // the next RESUME replays the whole backlog
	noContent   map[string]bool // bot tokens whose app lacks MESSAGE_CONTENT
	acceptFail  int             // how many more message POSTs are stored, then failed
	failMode    FailMode
	slow        time.Duration // delay before every REST answer
	gate        chan struct{} // non-nil: message POSTs wait until it is closed
	routeN      int           // per-route limit: requests per routePer; 0 is off
	routePer    time.Duration
}

// DropConnections cuts every gateway connection without a close frame, as a
// network failure would, and returns how many it cut. Their sessions stay
// resumable, so discordgo comes back with RESUME.
func (s *Server) DropConnections() int {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		s.detachLocked(c)
		c.closing = true
		conns = append(conns, c)
	}
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.Abort()
	}
	s.logf("dropped %d gateway connections", len(conns))
	return len(conns)
}

// SetHeartbeatAcks turns heartbeat ACKs off (the connection looks hung to the
// client, which reconnects after five intervals) or back on.
func (s *Server) SetHeartbeatAcks(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.acks = on
}

// SetTokenRejected revokes a token or restores it. While revoked, its live
// sessions are closed with 4004, IDENTIFY and RESUME are answered with 4004
// and REST with 401.
func (s *Server) SetTokenRejected(token string, rejected bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !rejected {
		delete(s.faults.rejected, token)
		return
	}
	s.faults.rejected[token] = true
	for c := range s.conns {
		if c.token == token && !c.closing {
			s.rejectLocked(c)
		}
	}
	s.notifyLocked()
}

// SetReadyDelay makes the gateway wait this long between IDENTIFY and READY.
func (s *Server) SetReadyDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.readyDelay = d
}

// RateLimitNext answers the next n POSTs (messages and threads) with 429,
// Retry-After and the X-RateLimit-* headers Discord sends; discordgo waits
// retry_after and tries again.
func (s *Server) RateLimitNext(n int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.limitN, s.faults.limitAfter = n, retryAfter
}

// takeRateLimitLocked consumes one injected 429, if any is left.
func (s *Server) takeRateLimitLocked() (time.Duration, bool) {
	if s.faults.limitN <= 0 {
		return 0, false
	}
	s.faults.limitN--
	s.rateLimited++
	s.notifyLocked()
	return s.faults.limitAfter, true
}

// SetUnavailable starts or ends an outage of the socket endpoint. While it
// lasts every live socket is cut and every new one is answered 503, so a
// client stays disconnected, whatever its reconnect timing, until the test
// ends the outage.
func (s *Server) SetUnavailable(on bool) {
	s.mu.Lock()
	s.faults.unavailable = on
	s.mu.Unlock()
	if on {
		s.DropConnections()
	}
}

// ReplayAllOnNextResume makes the next RESUME replay every dispatch still
// in its session's backlog, not only those after the client's sequence,
// so the client sees events it already had: Discord's delivery is at
// least once, and a client must take a replayed event as a duplicate.
func (s *Server) ReplayAllOnNextResume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.replayAll = true
}
