package faketelegram

import (
	"net/http"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// maxPollTimeout is the service's cap on getUpdates' timeout, in seconds.
const maxPollTimeout = 50

// poll is a getUpdates waiting for updates. end carries why it must end
// before it has any: another getUpdates, a webhook, a revoked token, an
// outage or a dropped connection.
type poll struct{ end chan pollEnd }

// pollEnd is how a getUpdates ends: with an answer, failed as mode says
// when answer is nil, or not at all when silent (its client left, or the
// server closed).
type pollEnd struct {
	answer *answer
	mode   FailMode
	silent bool
}

// getUpdates answers getUpdates as the service does: the offset confirms
// the updates below it; pending ones are answered at once; with none and
// a timeout the request waits for one, until the timeout, and a new
// getUpdates that has to wait too ends it with 409 (the service keeps one
// waiting request per bot). A poll stops counting as live before its
// answer goes out, so a client that polls again at once is never seen
// polling twice.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, p params) {
	var allowed []string
	if err := p.object("allowed_updates", &allowed); err != nil {
		writeAnswer(w, badRequest(err.Error()))
		return
	}
	e := s.pollUpdates(r, p, allowed)
	s.pollDone()
	s.endPoll(w, e)
}

// pollUpdates is a getUpdates counted live until it returns how it ends.
func (s *Server) pollUpdates(r *http.Request, p params, allowed []string) pollEnd {
	limit := int(min(max(p.int("limit", 100), 1), 100))
	timeout := time.Duration(min(max(p.int("timeout", 0), 0), maxPollTimeout)) * time.Second
	s.mu.Lock()
	s.polls.Up()
	s.core.NotifyLocked()
	if e, done := s.pollNowLocked(p, allowed); done {
		s.mu.Unlock()
		return e
	}
	s.updates.confirm(p.int("offset", 0))
	batch := s.updates.take(limit)
	if len(batch) > 0 || timeout == 0 {
		s.mu.Unlock()
		return s.updatesEnd(batch)
	}
	s.endPollLocked(pollEnd{answer: conflict(conflictOtherPoll)})
	me := &poll{end: make(chan pollEnd, 1)}
	s.poll = me
	wake := s.updates.wake
	s.mu.Unlock()
	defer s.forget(me)
	return s.wait(r, me, wake, limit, timeout)
}

// pollNowLocked is how a getUpdates ends before it looks at the queue:
// with a webhook set, or a fault; done false lets it go on. It keeps the
// allowed_updates named.
func (s *Server) pollNowLocked(p params, allowed []string) (end pollEnd, done bool) {
	if s.webhook != "" {
		s.counts.conflicts++
		return pollEnd{answer: conflict(conflictWebhook)}, true
	}
	if _, named := p["allowed_updates"]; named {
		s.updates.setAllowed(allowed)
	}
	if s.faults.dropPoll {
		s.faults.dropPoll = false
		return pollEnd{mode: FailCut}, true
	}
	if f := s.faults.before["getupdates"]; f != nil && fakeserver.Take(&f.n) {
		return pollEnd{mode: f.mode}, true
	}
	return pollEnd{}, false
}

// wait is a getUpdates waiting: it ends with the first updates queued,
// as another request ends it, or with none at its timeout.
func (s *Server) wait(r *http.Request, me *poll, wake <-chan struct{}, limit int, timeout time.Duration) pollEnd {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-wake:
			s.mu.Lock()
			batch, next := s.updates.take(limit), s.updates.wake
			s.mu.Unlock()
			if len(batch) > 0 {
				return s.updatesEnd(batch)
			}
			wake = next
		case e := <-me.end:
			return e
		case <-timer.C:
			return s.updatesEnd([]any{})
		case <-r.Context().Done(): // the client left: nobody to answer
			return pollEnd{silent: true}
		case <-s.closed:
			return pollEnd{silent: true}
		}
	}
}

// updatesEnd answers updates taken from the queue, or, when FailAfter
// says so, loses the answer: they stay unconfirmed, to come again.
func (s *Server) updatesEnd(batch []any) pollEnd {
	if mode, hit := s.takeFault("getupdates", true); hit {
		s.logf("getUpdates answer with %d updates lost (mode %d)", len(batch), mode)
		return pollEnd{mode: mode}
	}
	return pollEnd{answer: ok(batch)}
}

// endPoll answers a getUpdates as it ended.
func (s *Server) endPoll(w http.ResponseWriter, e pollEnd) {
	switch {
	case e.silent:
	case e.answer != nil:
		writeAnswer(w, e.answer)
	default:
		s.logf("getUpdates failed (mode %d)", e.mode)
		s.core.Fail(w, e.mode)
	}
}

// endPollLocked ends the waiting getUpdates, if any, as e says; it
// reports whether one was waiting.
func (s *Server) endPollLocked(e pollEnd) bool {
	if s.poll == nil {
		return false
	}
	if e.answer != nil && e.answer.status == http.StatusConflict {
		s.counts.conflicts++
	}
	s.poll.end <- e
	s.poll = nil
	return true
}

// forget drops a poll that ended by itself.
func (s *Server) forget(me *poll) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.poll == me {
		s.poll = nil
	}
}

// pollDone counts a getUpdates ended.
func (s *Server) pollDone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.polls.Live--
	s.core.NotifyLocked()
}
