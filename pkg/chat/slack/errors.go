package slack

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

// defaultRetryAfter is the wait after a 429 that names none, or Slack's
// "ratelimited" error in an HTTP 200.
const defaultRetryAfter = 5 * time.Second

// blockedCodes are Slack errors no retry of the same request can get past
// until someone fixes the configuration: the token, its scopes, the
// channel, the bot's membership. Nothing was posted.
var blockedCodes = map[string]bool{
	"channel_not_found": true, "not_in_channel": true, "is_archived": true,
	"invalid_auth": true, "not_authed": true, "account_inactive": true,
	"token_revoked": true, "token_expired": true, "missing_scope": true,
	"not_allowed_token_type": true, "no_permission": true, "access_denied": true,
	"ekm_access_denied": true, "team_access_not_granted": true, "org_login_required": true,
	"restricted_action": true, "restricted_action_read_only_channel": true,
	"restricted_action_thread_only_channel": true, "restricted_action_non_threadable_channel": true,
	"team_not_found": true, "enterprise_is_restricted": true, "two_factor_setup_required": true,
}

// channelCodes, at the channel check, mean the configured channel itself
// is wrong or out of the bot's reach.
var channelCodes = map[string]bool{"channel_not_found": true, "not_in_channel": true, "is_archived": true}

// refusedCodes are Slack refusing this content for good: trying it again
// cannot succeed, and nothing was posted.
var refusedCodes = map[string]bool{
	"msg_too_long": true, "no_text": true, "invalid_blocks": true, "invalid_blocks_format": true,
	"invalid_metadata_format": true, "invalid_metadata_schema": true, "metadata_too_large": true,
	"metadata_must_be_sent_from_app": true, "too_many_attachments": true, "invalid_attachments": true,
	"markdown_text_conflict": true, "invalid_arguments": true, "invalid_arg_name": true,
	"thread_not_found": true, "cannot_reply_to_message": true, "message_not_found": true,
	"cant_update_message": true, "edit_window_closed": true, "msg_blocks_too_long": true,
	"too_many_blocks": true, "duplicate_message_not_found": true,
	// A file the workspace will not take (its type, its size, not an
	// image where only images are allowed), or an empty one.
	"file_type_not_allowed": true, "file_upload_size_restricted": true,
	"file_uploads_except_images_disabled": true, "missing_argument": true,
}

// uncertainCodes are Slack's own transient failures, after which it may or
// may not have done the work.
var uncertainCodes = map[string]bool{
	"internal_error": true, "fatal_error": true, "service_unavailable": true,
	"request_timeout": true, "timeout": true,
}

// classify turns what slack-go returned into a *relay.Error. Anything not
// known to be a clean refusal or a rate limit is Uncertain: the request
// may have been accepted (a cut connection, a 5xx, a timeout, an answer
// that does not decode). An error code Slack sent that none of the tables
// name is Blocked: Slack said no, so nothing was posted, and pausing with
// the backlog kept shows the unknown case to an operator instead of losing
// a message or looping on it.
func classify(err error) *relay.Error {
	if err == nil {
		return nil
	}
	var we *waitEnded
	if errors.As(err, &we) { // nothing was sent
		return &relay.Error{Kind: relay.RateLimited, Code: "ratelimited", RetryAfter: we.left, Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &relay.Error{Kind: relay.Uncertain, Err: err}
	}
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		after := rl.RetryAfter
		if after <= 0 {
			after = defaultRetryAfter
		}
		return &relay.Error{Kind: relay.RateLimited, Code: "ratelimited", RetryAfter: after, Err: err}
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) {
		return classifyStatus(sc.Code, err)
	}
	if code, ok := slackCode(err); ok {
		return classifyCode(code, err)
	}
	return &relay.Error{Kind: relay.Uncertain, Err: err}
}

func classifyStatus(status int, err error) *relay.Error {
	code := "http_" + http.StatusText(status)
	code = strings.ToLower(strings.ReplaceAll(code, " ", "_"))
	switch status {
	case http.StatusTooManyRequests:
		return &relay.Error{Kind: relay.RateLimited, Code: "ratelimited", RetryAfter: defaultRetryAfter, Err: err}
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		// The API URL or the app is wrong, not this request.
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: code, Err: err}
	}
	return &relay.Error{Kind: relay.Uncertain, Code: code, Err: err}
}

func classifyCode(code string, err error) *relay.Error {
	e := &relay.Error{Code: code, Err: err}
	switch {
	case code == "ratelimited" || code == "rate_limited":
		e.Kind, e.RetryAfter = relay.RateLimited, defaultRetryAfter
	case refusedCodes[code]:
		e.Kind = relay.Refused
	case uncertainCodes[code]:
		e.Kind = relay.Uncertain
	case blockedCodes[code]:
		e.Kind, e.Reason = relay.Blocked, relay.ReasonRelayBlocked
	default:
		e.Kind, e.Reason = relay.Blocked, relay.ReasonRelayBlocked
	}
	return e
}

// slackCode is the error string of an ok:false answer.
func slackCode(err error) (string, bool) {
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err, true
	}
	var sep *slackapi.SlackErrorResponse
	if errors.As(err, &sep) && sep != nil {
		return sep.Err, true
	}
	return "", false
}

// scrubbed hides the tokens in an error's text: slack-go's errors carry
// URLs and server text, and a token must reach no log, status or file.
type scrubbed struct {
	err  error
	text string
}

func (s *scrubbed) Error() string { return s.text }
func (s *scrubbed) Unwrap() error { return s.err }

func scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	hit := false
	for _, sec := range secrets {
		if sec != "" && strings.Contains(text, sec) {
			text, hit = strings.ReplaceAll(text, sec, "[redacted]"), true
		}
	}
	if !hit {
		return err
	}
	return &scrubbed{err: err, text: text}
}
