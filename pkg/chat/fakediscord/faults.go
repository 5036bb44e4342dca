package fakediscord

import (
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// faults are the switches a test flips; guarded by Server.mu.
type faults struct {
	acks       bool            // answer heartbeats with op 11
	rejected   map[string]bool // tokens treated as revoked
	readyDelay time.Duration
	unknown    map[string]bool   // channel and thread IDs that answer 10003
	denied     map[string]int64  // bot tokens' permissions denied in every channel
	appIDs     map[string]string // bot tokens that belong to another application
	replayAll  bool              // the next RESUME replays the whole backlog
	noContent  map[string]bool   // bot tokens whose app lacks MESSAGE_CONTENT
	gate       *fakeserver.Hold  // non-nil: creating POSTs wait at it
	routeN     int               // per-route limit: requests per routePer; 0 is off
	routePer   time.Duration
	// holdResumes: RESUMEs wait in heldResumes for ReleaseResumes.
	holdResumes bool
	heldResumes []heldResume
}

// DropConnections cuts every gateway connection without a close frame, as a
// network failure would, and returns how many it cut. Their sessions stay
// resumable, so discordgo comes back with RESUME.
func (s *Server) DropConnections() int {
	n := s.core.Cut(s.detachAllLocked)
	s.logf("dropped %d gateway connections", n)
	return n
}

// detachAllLocked takes every connection off the air and returns them to cut.
func (s *Server) detachAllLocked() (cut []*fakeserver.Socket) {
	for c := range s.conns {
		s.detachLocked(c)
		cut = append(cut, c.Socket)
	}
	return cut
}

// SetHeartbeatAcks turns heartbeat ACKs off (the connection looks hung to the
// client, which reconnects after five intervals) or back on.
func (s *Server) SetHeartbeatAcks(on bool) { fakeserver.Set(s.core, &s.faults.acks, on) }

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
func (s *Server) SetReadyDelay(d time.Duration) { fakeserver.Set(s.core, &s.faults.readyDelay, d) }

// ReplayAllOnNextResume makes the next RESUME replay every dispatch still
// in its session's backlog, not only those after the client's sequence,
// so the client sees events it already had: Discord's delivery is at
// least once, and a client must take a replayed event as a duplicate.
func (s *Server) ReplayAllOnNextResume() { fakeserver.Set(s.core, &s.faults.replayAll, true) }
