package relay

import (
	"context"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// ClosedError is why a message for a closed session is not posted: the
// relay fails such a file (dropped by hand), and send refuses to write one.
type ClosedError struct {
	Session string
	At      time.Time // when the close was confirmed; zero if unknown
}

func (e *ClosedError) Error() string {
	when := ""
	if !e.At.IsZero() {
		when = " at " + e.At.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("session %s was closed%s: a closed session takes no more messages; send to a new session", e.Session, when)
}

// SessionClosed reads the journal in store, without writing it, and
// returns a ClosedError when it records session as closed, nil when not.
// The journal is folded as the relay folds it at start (state.apply), so
// send refuses exactly what the relay would fail.
func SessionClosed(ctx context.Context, store JournalStore, session string) (*ClosedError, error) {
	st := newState()
	err := store.Replay(ctx, func(rec bus.Record) error {
		if rec.Session == session {
			st.apply(rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the relay journal %v: %w", store, err)
	}
	return st.closedError(session), nil
}

// closedError is the ClosedError of session when the state knows it
// closed, else nil.
func (s *state) closedError(session string) *ClosedError {
	ss := s.sessions[session]
	if ss == nil || !ss.closed {
		return nil
	}
	e := &ClosedError{Session: session}
	if ss.closedAt != 0 {
		e.At = time.UnixMilli(ss.closedAt)
	}
	return e
}
