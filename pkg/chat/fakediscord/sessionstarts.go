package fakediscord

import (
	"net/http"
	"time"
)

// Discord allows a bot a number of session starts (IDENTIFYs) a day, 1,000
// for a bot in fewer than 2,500 guilds; GET /gateway/bot says how many are
// left and when the count resets. A bot that goes past them has its token
// reset: every later request and IDENTIFY with it fails authentication.
const (
	DefaultSessionStarts = 1000
	sessionStartWindow   = 24 * time.Hour
)

// startBudget is one token's session starts in the current window.
type startBudget struct {
	remaining int
	resetAt   time.Time
}

// budgetLocked returns token's budget, starting a new window when the last
// one ended.
func (s *Server) budgetLocked(token string) *startBudget {
	if s.starts == nil {
		s.starts = map[string]*startBudget{}
	}
	b := s.starts[token]
	if now := time.Now(); b == nil || !now.Before(b.resetAt) {
		b = &startBudget{remaining: DefaultSessionStarts, resetAt: now.Add(sessionStartWindow)}
		s.starts[token] = b
	}
	return b
}

// spendStartLocked counts one IDENTIFY against token's budget and reports
// whether the token survives it: one past the budget resets the token.
func (s *Server) spendStartLocked(token string) bool {
	b := s.budgetLocked(token)
	if b.remaining <= 0 {
		s.faults.rejected[token] = true
		s.logf("session start budget spent: token reset")
		return false
	}
	b.remaining--
	return true
}

// SetSessionStarts sets how many session starts token has left and when
// they reset.
func (s *Server) SetSessionStarts(token string, remaining int, resetAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.budgetLocked(token)
	b.remaining, b.resetAt = remaining, time.Now().Add(resetAfter)
}

func (s *Server) getGatewayBot(_ *http.Request, token string) (int, any) {
	s.mu.Lock()
	b := *s.budgetLocked(token)
	s.mu.Unlock()
	return http.StatusOK, map[string]any{
		"url":    s.GatewayURL(),
		"shards": 1,
		"session_start_limit": map[string]int64{
			"total": DefaultSessionStarts, "remaining": int64(b.remaining),
			"reset_after": max(time.Until(b.resetAt), 0).Milliseconds(), "max_concurrency": 1,
		},
	}
}
