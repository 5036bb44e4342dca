package telegram

import (
	"errors"
	"fmt"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/relay"
)

func bad(desc string) error { return fmt.Errorf("%w, Bad Request: %s", tgbot.ErrorBadRequest, desc) }

func TestAnswerOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Answer
	}{
		{nil, Edited},
		{bad("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"), NotModified},
		{bad("message can't be edited"), CantEdit},
		{bad("message to edit not found"), NotFound},
		{bad("there is no text in the message to edit"), OtherKind},
		{bad("there is no caption in the message to edit"), OtherKind},
		{bad("something else"), Unknown},
		{&tgbot.TooManyRequestsError{RetryAfter: 3}, Unknown},
		{errors.New("connection reset"), Unknown},
	} {
		if got := answerOf(tc.err); got != tc.want {
			t.Errorf("answerOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err    error
		kind   relay.Kind
		reason string
	}{
		{&tgbot.TooManyRequestsError{RetryAfter: 3}, relay.RateLimited, ""},
		{fmt.Errorf("%w, Unauthorized", tgbot.ErrorUnauthorized), relay.Blocked, relay.ReasonRelayBlocked},
		{fmt.Errorf("%w, Forbidden: bot was kicked from the supergroup chat", tgbot.ErrorForbidden), relay.Blocked, relay.ReasonRelayBlocked},
		{bad("chat not found"), relay.Blocked, relay.ReasonRelayBlocked},
		{bad("message thread not found"), relay.Gone, ""},
		{bad("message to be replied not found"), relay.Gone, ""},
		{bad("message is too long"), relay.Refused, ""},
		{errors.New("error response from telegram for method sendMessage, 502 Bad Gateway"), relay.Uncertain, ""},
		{errors.New("connection reset by peer"), relay.Uncertain, ""},
	} {
		e := classify(tc.err)
		if e.Kind != tc.kind || e.Reason != tc.reason {
			t.Errorf("classify(%v) = %v %q, want %v %q", tc.err, e.Kind, e.Reason, tc.kind, tc.reason)
		}
	}
	if e := classify(&tgbot.TooManyRequestsError{RetryAfter: 3}); e.RetryAfter != 3*time.Second {
		t.Errorf("retry_after 3 waits %v", e.RetryAfter)
	}
}
