package fakeserver

import (
	"slices"
	"strings"
	"time"
)

// Faults are the switches every fake has, flipped by a test at run time.
// Which requests they apply to is the fake's to say (its package doc): the
// fake takes them with the Server's Take* methods.
type Faults struct {
	s *Server

	// Guarded by the fake's lock.
	unavailable bool
	limitN      int // how many more requests get a 429
	limitAfter  time.Duration
	failN       int // how many more requests are handled, then failed
	failMode    FailMode
	slow        time.Duration // added before every answer
}

// SetUnavailable starts or ends an outage of the socket endpoint. While it
// lasts every live socket is cut and every new one is answered 503, so a
// client stays disconnected, whatever its reconnect timing, until the test
// ends the outage.
func (f *Faults) SetUnavailable(on bool) {
	f.s.mu.Lock()
	f.unavailable = on
	f.s.mu.Unlock()
	if on {
		f.s.cfg.Drop()
	}
}

// RateLimitNext answers the next n of the requests the service limits with
// HTTP 429 and a wait of retryAfter, in the service's own words and headers.
func (f *Faults) RateLimitNext(n int, retryAfter time.Duration) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.limitN, f.limitAfter = n, retryAfter
}

// AcceptThenFail makes the next n posts succeed at the fake (the message is
// stored and announced to the sockets) and then answers them as mode says:
// the client cannot tell whether its message went through.
func (f *Faults) AcceptThenFail(n int, mode FailMode) {
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.failN, f.failMode = n, mode
}

// SetSlow delays every answer of the API (not the socket's) by d, after the
// request was handled: a post is stored, then answered late. 0 ends it.
func (f *Faults) SetSlow(d time.Duration) { Set(f.s, &f.slow, d) }

// TakeRateLimitLocked consumes one injected 429, if any is left.
func (s *Server) TakeRateLimitLocked() (retryAfter time.Duration, hit bool) {
	return s.faults.limitAfter, Take(&s.faults.limitN)
}

// TakeAcceptFailLocked consumes one pending accept-then-fail, if any.
func (s *Server) TakeAcceptFailLocked() (FailMode, bool) {
	return s.faults.failMode, Take(&s.faults.failN)
}

// Take consumes one of the next n requests a fault applies to, if any is
// left: how a fault that lasts n requests counts down under the fake's lock.
func Take(n *int) bool {
	if *n <= 0 {
		return false
	}
	*n--
	return true
}

// Set sets a switch of a fake under its lock.
func Set[T any](s *Server, p *T, v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*p = v
}

// Toggle puts key in set, or takes it out, under the fake's lock: the
// per-channel and per-token switches of a fake.
func (s *Server) Toggle(set map[string]bool, key string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		set[key] = true
	} else {
		delete(set, key)
	}
}

// Accepts says whether a fake takes a token: one of those listed, or, when
// none are, any with the prefix.
func Accepts(listed []string, token, prefix string) bool {
	if len(listed) == 0 {
		return strings.HasPrefix(token, prefix)
	}
	return slices.Contains(listed, token)
}

// Only is the set of a fake's channels when a test lists them; nil, which
// lets every ID exist, when it does not.
func Only(ids []string) map[string]bool {
	if len(ids) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, id := range ids {
		set[id] = true
	}
	return set
}
