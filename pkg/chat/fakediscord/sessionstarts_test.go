package fakediscord_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// GET /gateway/bot's session_start_limit, read through discordgo: each
// IDENTIFY spends one, and one past the budget resets the token, as Discord
// does to a bot that logs in too often.
func TestSessionStartLimit(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, HeartbeatInterval: time.Second})
	s := newSession(t, f, token)
	s.ShouldReconnectOnError = false

	gb, err := s.GatewayBot()
	if err != nil {
		t.Fatal(err)
	}
	if l := gb.SessionStartLimit; l.Total != 1000 || l.Remaining != 1000 || l.ResetAfter <= 0 || l.ResetAfter > 86_400_000 || l.MaxConcurrency != 1 {
		t.Fatalf("session_start_limit %+v", l)
	}

	f.SetSessionStarts(token, 1, time.Hour)
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	gb, err = s.GatewayBot()
	if err != nil {
		t.Fatal(err)
	}
	if l := gb.SessionStartLimit; l.Remaining != 0 || l.ResetAfter > int(time.Hour/time.Millisecond) || l.ResetAfter < int(59*time.Minute/time.Millisecond) {
		t.Fatalf("after one IDENTIFY: %+v", l)
	}
	closeSession(t, s)

	// A new session (not a resume) identifies once more: past the budget.
	s2 := newSession(t, f, token)
	s2.ShouldReconnectOnError = false
	err = open(t, s2)
	if ce, ok := errors.AsType[*websocket.CloseError](err); !ok || ce.Code != 4004 {
		t.Fatalf("IDENTIFY past the budget: Open = %v, want close 4004", err)
	}
	if _, err := s2.User("@me"); restStatus(err) != 401 {
		t.Fatalf("the token was not reset: %v", err)
	}
	if st := f.Snapshot().Tokens[token]; st.Identifies != 2 {
		t.Fatalf("stats %+v", st)
	}
}
