package telegram

import (
	"errors"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/relay"
)

// The service's exact descriptions the probe and the poster tell apart.
const (
	descNotModified = "message is not modified"
	descCantEdit    = "message can't be edited"
	descNotFound    = "message to edit not found"
	descNoText      = "there is no text in the message to edit"
	descNoCaption   = "there is no caption in the message to edit"
	descThreadGone  = "message thread not found"
	descReplyGone   = "message to be replied not found"
	descChatGone    = "chat not found"
	descWebhook     = "webhook is active"
)

// answerOf is what one probing edit proved (see Answer).
func answerOf(err error) Answer {
	switch {
	case err == nil:
		return Edited
	case !errors.Is(err, tgbot.ErrorBadRequest):
		return Unknown
	case strings.Contains(err.Error(), descNotModified):
		return NotModified
	case strings.Contains(err.Error(), descCantEdit):
		return CantEdit
	case strings.Contains(err.Error(), descNotFound):
		return NotFound
	case strings.Contains(err.Error(), descNoText), strings.Contains(err.Error(), descNoCaption):
		return OtherKind
	}
	return Unknown
}

// classify turns what the client returned into a *relay.Error. Anything
// not known to be a refusal is Uncertain: the request may have been
// accepted (a cut connection, a 5xx, an answer that does not decode).
func classify(err error) *relay.Error {
	var tooMany *tgbot.TooManyRequestsError
	switch {
	case errors.As(err, &tooMany):
		wait := time.Duration(tooMany.RetryAfter) * time.Second
		if wait <= 0 {
			wait = time.Second
		}
		return &relay.Error{Kind: relay.RateLimited, Code: "429", RetryAfter: wait, Err: err}
	case errors.Is(err, tgbot.ErrorUnauthorized):
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "401", Err: err}
	case errors.Is(err, tgbot.ErrorForbidden):
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "403", Err: err}
	case errors.Is(err, tgbot.ErrorBadRequest):
		return badRequest(err)
	case errors.Is(err, tgbot.ErrorNotFound):
		// 404 is the service's answer to a malformed token or method.
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "404", Err: err}
	}
	if err != nil && strings.Contains(err.Error(), ", 413 ") {
		// A request body over the service's limit (an upload): the
		// client has no error of its own for it.
		return &relay.Error{Kind: relay.Refused, Code: "413", Err: err}
	}
	var migrate *tgbot.MigrateError
	if errors.As(err, &migrate) {
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "migrated", Err: err}
	}
	return &relay.Error{Kind: relay.Uncertain, Err: err}
}

// badRequest: a 400 accepted nothing. A place that went away is Gone,
// an unknown chat or missing rights Blocked, anything else a refusal of
// the content. (At the start-up check every block is the channel's:
// CheckChannel.)
func badRequest(err error) *relay.Error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, descThreadGone), strings.Contains(msg, descReplyGone):
		return &relay.Error{Kind: relay.Gone, Code: "400", Err: err}
	case strings.Contains(msg, descChatGone), strings.Contains(msg, "not enough rights"), strings.Contains(msg, "not a forum"):
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: "400", Err: err}
	}
	return &relay.Error{Kind: relay.Refused, Code: "400", Err: err}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
