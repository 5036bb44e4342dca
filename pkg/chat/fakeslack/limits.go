package fakeslack

import "time"

// methodLimit is a sliding window: at most n accepted calls per window.
type methodLimit struct {
	n     int
	per   time.Duration
	calls []time.Time // accepted calls inside the window, oldest first
}

// SetMethodLimit lets a Web API method run at most n times in any window
// of length per; a call over it is answered HTTP 429 with Retry-After (the
// wait until the window has room, in whole seconds, at least 1) and counted
// in Snapshot.RateLimited. n <= 0 removes the method's limit.
func (s *Server) SetMethodLimit(method string, n int, per time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 || per <= 0 {
		delete(s.limits, method)
		return
	}
	s.limits[method] = &methodLimit{n: n, per: per}
}

// methodLimitLocked counts a call against its method's limit; a positive
// wait means it is over the limit and not run.
func (s *Server) methodLimitLocked(method string, now time.Time) time.Duration {
	l := s.limits[method]
	if l == nil {
		return 0
	}
	for len(l.calls) > 0 && now.Sub(l.calls[0]) >= l.per {
		l.calls = l.calls[1:]
	}
	if len(l.calls) >= l.n {
		return max(l.calls[0].Add(l.per).Sub(now), time.Nanosecond)
	}
	l.calls = append(l.calls, now)
	return 0
}
