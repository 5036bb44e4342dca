package fakeslack

import (
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// DefaultAckTimeout is how long Slack waits for a Socket Mode ack before
// it retries an envelope.
const DefaultAckTimeout = 3 * time.Second

// maxRetries is Slack's retry policy: an event is retried 3 times, then
// given up.
const maxRetries = 3

// armAckTimeoutLocked starts the ack timeout of the delivery just sent.
// Each timer is counted in s.timers until it has run or been stopped, so
// Close can wait for them.
func (s *Server) armAckTimeoutLocked(e *envelope) {
	s.disarmLocked(e)
	if s.core.ClosedLocked() || s.opts.AckTimeout < 0 {
		return
	}
	delivery := e.Deliveries
	s.timers.Add(1)
	e.timer = time.AfterFunc(s.opts.AckTimeout, func() {
		defer s.timers.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ackTimedOutLocked(e, delivery)
	})
}

// disarmLocked stops an envelope's ack timeout, if armed.
func (s *Server) disarmLocked(e *envelope) {
	if e.timer == nil {
		return
	}
	if e.timer.Stop() {
		s.timers.Done() // it will not run
	}
	e.timer = nil
}

// ackTimedOutLocked retries an envelope whose delivery number delivery
// went unacked for AckTimeout, or gives it up once the retries are spent.
// A timer that lost a race with an ack, a closed socket or Close finds the
// envelope moved on and does nothing.
func (s *Server) ackTimedOutLocked(e *envelope, delivery int) {
	if s.core.ClosedLocked() || e.Acked || e.GaveUp || e.conn == nil || e.Deliveries != delivery {
		return
	}
	e.timer = nil
	s.sweepLocked(e.AppToken) // a socket already gone must not get the retry
	if e.conn == nil || e.Deliveries != delivery {
		return // the sweep moved it on
	}
	if e.Deliveries > maxRetries {
		s.giveUpLocked(e)
		return
	}
	s.logf("envelope %s not acked within %s, retrying", e.ID, s.opts.AckTimeout)
	s.deliverLocked(e)
	s.notifyLocked()
}

// giveUpLocked ends an envelope's retries, as Slack does after the last.
func (s *Server) giveUpLocked(e *envelope) {
	s.disarmLocked(e)
	e.conn = nil
	e.GaveUp = true
	s.logf("envelope %s given up after %d deliveries", e.ID, e.Deliveries)
	s.notifyLocked()
}

// ackFrame handles an ack read from a socket: OnAck sees the envelope as it
// was before the ack, outside the lock, then the ack is recorded. A late ack
// (after a retry went out, or after the envelope was given up) still counts.
func (s *Server) ackFrame(id string) {
	s.mu.Lock()
	if fakeserver.Take(&s.faults.lostAcks) {
		s.mu.Unlock()
		s.logf("ack for envelope %s lost", id)
		return
	}
	e := s.byID[id]
	var before Envelope
	if e != nil {
		before = e.copy()
	}
	s.mu.Unlock()
	if e == nil {
		s.logf("ack for unknown envelope %s", id)
		return
	}
	if s.opts.OnAck != nil {
		s.opts.OnAck(before)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Acked {
		return
	}
	e.Acked, e.AckedAt = true, time.Now()
	s.disarmLocked(e)
	s.notifyLocked()
}
