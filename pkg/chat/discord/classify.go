package discord

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"gjc.dev/reconciler/pkg/relay"
)

// Discord's JSON error codes the adapter acts on.
const (
	codeUnknownMessage = 10008
	codeArchivedThread = 50083
	codeThreadExists   = 160004
	// codeOldMessageEdits is Discord's rule on editing old messages:
	// edits of messages older than an hour draw on a separate, smaller
	// allowance Discord does not publish, and one spent is answered
	// "Maximum number of edits to messages older than 1 hour reached. Try
	// again later" (a 429). It is a rate limit, whatever the status it
	// comes with: the edit waits its retry_after and is kept, never
	// failed as refused. The relay's coalescing (relay.EditGap) keeps such
	// edits few.
	codeOldMessageEdits = 30046
)

// errUnauthorized is the cause of every 401: the token, not the channel.
var errUnauthorized = errors.New("discord rejected the bot token (401)")

// apiError is the body of Discord's error answers (429s included).
type apiError struct {
	Code       int     `json:"code"`
	Message    string  `json:"message"`
	RetryAfter float64 `json:"retry_after"`
	Global     bool    `json:"global"`
}

// classify says what a non-2xx answer means for the part and the relay. It
// is pure: the status, headers and body Discord sent, nothing else.
func classify(status int, h http.Header, body []byte) *relay.Error {
	var e apiError
	_ = json.Unmarshal(body, &e) // a 502 from the edge is HTML: no code
	code := "HTTP " + strconv.Itoa(status)
	if e.Code != 0 {
		code = strconv.Itoa(e.Code)
	}
	msg := e.Message
	if len(msg) > 200 {
		msg = msg[:200]
	}
	cause := fmt.Errorf("discord answered %d: %s", status, msg)
	if msg == "" {
		cause = fmt.Errorf("discord answered %d", status)
	}
	switch {
	case status == http.StatusTooManyRequests, e.Code == codeOldMessageEdits:
		return &relay.Error{Kind: relay.RateLimited, Code: code, RetryAfter: retryAfter(e.RetryAfter, h),
			Global: e.Global || h.Get("X-RateLimit-Scope") == "global" || h.Get("X-RateLimit-Global") != "", Err: cause}
	case status == http.StatusUnauthorized:
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: code,
			Err: errUnauthorized}
	case status == http.StatusNotFound && e.Code == codeUnknownMessage:
		// The message to edit or start a thread from is gone: nothing a
		// configuration change would fix.
		return &relay.Error{Kind: relay.Refused, Code: code, Err: cause}
	case status == http.StatusForbidden || status == http.StatusNotFound:
		return &relay.Error{Kind: relay.Blocked, Reason: relay.ReasonRelayBlocked, Code: code, Err: cause}
	case status >= 400 && status < 500:
		return &relay.Error{Kind: relay.Refused, Code: code, Err: cause}
	}
	return &relay.Error{Kind: relay.Uncertain, Code: code, Err: cause}
}

// maxRetryAfter caps a wait the service asks for, so a garbled header cannot
// park a session for years.
const maxRetryAfter = time.Hour

// retryAfter reads the wait of a 429: the body's retry_after (seconds, a
// float), else the Retry-After header (whole seconds), else the bucket's
// X-RateLimit-Reset-After; a second when none parses, never less than zero.
func retryAfter(body float64, h http.Header) time.Duration {
	secs := body
	for _, name := range []string{"Retry-After", "X-RateLimit-Reset-After"} {
		if secs > 0 {
			break
		}
		if v, err := strconv.ParseFloat(h.Get(name), 64); err == nil {
			secs = v
		}
	}
	switch {
	case secs <= 0 || math.IsNaN(secs):
		return time.Second
	case secs > maxRetryAfter.Seconds():
		return maxRetryAfter
	}
	return time.Duration(math.Ceil(secs * float64(time.Second)))
}
