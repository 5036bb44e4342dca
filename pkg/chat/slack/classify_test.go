package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

func TestClassify(t *testing.T) {
	urlErr := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/api/chat.postMessage", Err: err}
	}
	jsonErr := json.Unmarshal([]byte("<html>"), &map[string]any{})
	for _, tc := range []struct {
		name   string
		err    error
		kind   relay.Kind
		reason string
		code   string
		after  time.Duration
	}{
		{"429 with Retry-After", &slackapi.RateLimitedError{RetryAfter: 7 * time.Second}, relay.RateLimited, "", "ratelimited", 7 * time.Second},
		{"429 without", slackapi.StatusCodeError{Code: 429, Status: "429"}, relay.RateLimited, "", "ratelimited", defaultRetryAfter},
		{"ratelimited in a 200", slackapi.SlackErrorResponse{Err: "ratelimited"}, relay.RateLimited, "", "ratelimited", defaultRetryAfter},
		{"502", slackapi.StatusCodeError{Code: 502, Status: "502 Bad Gateway"}, relay.Uncertain, "", "http_bad_gateway", 0},
		{"503", slackapi.StatusCodeError{Code: 503}, relay.Uncertain, "", "http_service_unavailable", 0},
		{"404: wrong API URL", slackapi.StatusCodeError{Code: 404}, relay.Blocked, relay.ReasonRelayBlocked, "http_not_found", 0},
		{"channel_not_found", slackapi.SlackErrorResponse{Err: "channel_not_found"}, relay.Blocked, relay.ReasonRelayBlocked, "channel_not_found", 0},
		{"a file type the workspace refuses", slackapi.SlackErrorResponse{Err: "file_type_not_allowed"}, relay.Refused, "", "file_type_not_allowed", 0},
		{"file uploads disabled: until an admin allows them", slackapi.SlackErrorResponse{Err: "file_uploads_disabled"}, relay.Blocked, relay.ReasonRelayBlocked, "file_uploads_disabled", 0},
		{"not_in_channel", slackapi.SlackErrorResponse{Err: "not_in_channel"}, relay.Blocked, relay.ReasonRelayBlocked, "not_in_channel", 0},
		{"invalid_auth", slackapi.SlackErrorResponse{Err: "invalid_auth"}, relay.Blocked, relay.ReasonRelayBlocked, "invalid_auth", 0},
		{"missing_scope", &slackapi.SlackErrorResponse{Err: "missing_scope"}, relay.Blocked, relay.ReasonRelayBlocked, "missing_scope", 0},
		{"is_archived", slackapi.SlackErrorResponse{Err: "is_archived"}, relay.Blocked, relay.ReasonRelayBlocked, "is_archived", 0},
		{"token_revoked wrapped", fmt.Errorf("x: %w", slackapi.SlackErrorResponse{Err: "token_revoked"}), relay.Blocked, relay.ReasonRelayBlocked, "token_revoked", 0},
		{"an unknown code", slackapi.SlackErrorResponse{Err: "brand_new_error"}, relay.Blocked, relay.ReasonRelayBlocked, "brand_new_error", 0},
		{"msg_too_long", slackapi.SlackErrorResponse{Err: "msg_too_long"}, relay.Refused, "", "msg_too_long", 0},
		{"no_text", slackapi.SlackErrorResponse{Err: "no_text"}, relay.Refused, "", "no_text", 0},
		{"invalid_blocks", slackapi.SlackErrorResponse{Err: "invalid_blocks"}, relay.Refused, "", "invalid_blocks", 0},
		{"invalid_metadata_format", slackapi.SlackErrorResponse{Err: "invalid_metadata_format"}, relay.Refused, "", "invalid_metadata_format", 0},
		{"internal_error", slackapi.SlackErrorResponse{Err: "internal_error"}, relay.Uncertain, "", "internal_error", 0},
		{"EOF", urlErr(io.EOF), relay.Uncertain, "", "", 0},
		{"reset", urlErr(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), relay.Uncertain, "", "", 0},
		{"timeout", urlErr(context.DeadlineExceeded), relay.Uncertain, "", "", 0},
		{"cancelled", context.Canceled, relay.Uncertain, "", "", 0},
		{"JSON decode failure", jsonErr, relay.Uncertain, "", "", 0},
		{"anything else", errors.New("boom"), relay.Uncertain, "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := classify(tc.err)
			if e.Kind != tc.kind || e.Reason != tc.reason || e.Code != tc.code || e.RetryAfter != tc.after {
				t.Fatalf("classify(%v) = %+v; want kind %s reason %q code %q after %s", tc.err, e, tc.kind, tc.reason, tc.code, tc.after)
			}
			// SlackErrorResponse holds slices, so errors.Is cannot compare it.
			if e.Err == nil || e.Err.Error() != tc.err.Error() {
				t.Fatalf("classify(%v) lost the cause", tc.err)
			}
		})
	}
	if classify(nil) != nil {
		t.Fatal("classify(nil) is not nil")
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"plain *bold* _it_ `c`":    "plain *bold* _it_ `c`",
		"<!channel>":               "&lt;!channel&gt;",
		"<!here|here> <!everyone>": "&lt;!here|here&gt; &lt;!everyone&gt;",
		"<@U123> <#C1|general>":    "&lt;@U123&gt; &lt;#C1|general&gt;",
		"a & b":                    "a &amp; b",
		"&lt;already":              "&amp;lt;already",
		"@channel @here":           "@channel @here",
		"é ✓ 😀 \n\t":               "é ✓ 😀 \n\t",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLookupOldest(t *testing.T) {
	first := time.Unix(1700003600, 250000000)
	for _, tc := range []struct {
		after string
		first time.Time
		want  string
	}{
		{"", time.Time{}, ""},
		{"1700000000.000100", time.Time{}, "1700000000.000100"},
		{"", first, "1700000000.250000"},
		{"1699990000.000001", first, "1700000000.250000"},
		{"1700000000.250001", first, "1700000000.250001"},
		{"1700000001.000000", first, "1700000001.000000"},
	} {
		if got := lookupOldest(tc.after, tc.first, time.Hour); got != tc.want {
			t.Errorf("lookupOldest(%q, %v) = %q, want %q", tc.after, tc.first, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		less bool
	}{
		{"1.000001", "1.000002", true},
		{"9.000000", "10.000000", true},
		{"10.000000", "9.999999", false},
		{"5.5", "5.5", false},
	} {
		if got := tsLess(tc.a, tc.b); got != tc.less {
			t.Errorf("tsLess(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

func TestFailScrubsToken(t *testing.T) {
	const tok = "xoxb-9-9-topsecret"
	p := &Poster{token: tok}
	err := p.fail("posting k/0", &url.Error{Op: "Post", URL: "http://h/api/x?token=" + tok, Err: io.EOF})
	if strings.Contains(err.Error(), tok) || strings.Contains(fmt.Sprintf("%+v", err), "topsecret") {
		t.Fatalf("token in %q", err)
	}
	if err.Kind != relay.Uncertain || !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("fail = %+v", err)
	}
}
