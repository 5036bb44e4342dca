package relay

import (
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// Kind says what a failed request means for the message and the relay.
type Kind int

const (
	// Uncertain: the request may or may not have been accepted (a
	// timeout, a cut connection, a 5xx). The part is looked up before any
	// re-post. Any error that is not an *Error counts as Uncertain.
	Uncertain Kind = iota
	// Refused: the service refused the content for good (too long, empty,
	// invalid). The message goes to failed/ with the reason after this one
	// attempt.
	Refused
	// Blocked: a configuration problem (unknown channel, missing access,
	// revoked token). Nothing was accepted; the relay pauses with the
	// backlog kept and retries with back-off until it is fixed.
	Blocked
	// RateLimited: not accepted; try again no earlier than RetryAfter.
	RateLimited
	// Gone: the session's place (its thread, or the root a thread was to
	// start from) was deleted, while the channel is reachable (the
	// adapter looked). Nothing was accepted. The relay makes the session
	// a new place, named as before, and goes on there: a place that went
	// away never fails a message.
	Gone
)

func (k Kind) String() string {
	switch k {
	case Refused:
		return "refused"
	case Blocked:
		return "blocked"
	case RateLimited:
		return "rate-limited"
	case Gone:
		return "gone"
	}
	return "uncertain"
}

// Reasons of a Blocked error, as status conditions name them. The record
// that carries them declares them; the relay uses its words.
const (
	ReasonRelayBlocked       = ownership.ReasonRelayBlocked
	ReasonChannelUnavailable = ownership.ReasonChannelUnavailable
)

// Error is a failed request, classified.
type Error struct {
	Kind Kind
	// Reason: for Blocked, ReasonRelayBlocked or ReasonChannelUnavailable.
	Reason string
	// Code is the service's own name for the failure (Discord's JSON code,
	// Slack's error string), for logs and the failed/ reason.
	Code string
	// RetryAfter (RateLimited): the earliest next try, from now.
	RetryAfter time.Duration
	// Global (RateLimited): the limit covers every route, not just this one.
	Global bool
	Err    error
}

func (e *Error) Error() string {
	msg := e.Kind.String()
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	if e.Kind == RateLimited {
		msg += fmt.Sprintf(", retry after %s", e.RetryAfter)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf classifies err: an *Error's kind, Uncertain for anything else.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Uncertain
}
