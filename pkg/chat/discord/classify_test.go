package discord

import (
	"net/http"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		status int
		h      http.Header
		body   string
		kind   relay.Kind
		reason string
		code   string
		retry  time.Duration
		global bool
	}{
		{"429 body seconds", 429, hdr("Retry-After", "3"), `{"message":"You are being rate limited.","retry_after":1.25,"global":false}`, relay.RateLimited, "", "HTTP 429", 1250 * time.Millisecond, false},
		{"429 global in body", 429, nil, `{"retry_after":0.5,"global":true}`, relay.RateLimited, "", "HTTP 429", 500 * time.Millisecond, true},
		{"429 global scope header", 429, hdr("X-RateLimit-Scope", "global"), `{"retry_after":2}`, relay.RateLimited, "", "HTTP 429", 2 * time.Second, true},
		{"429 header only", 429, hdr("Retry-After", "4"), `<html>`, relay.RateLimited, "", "HTTP 429", 4 * time.Second, false},
		{"429 reset-after only", 429, hdr("X-RateLimit-Reset-After", "0.75"), ``, relay.RateLimited, "", "HTTP 429", 750 * time.Millisecond, false},
		{"429 nothing parses", 429, nil, ``, relay.RateLimited, "", "HTTP 429", time.Second, false},
		{"429 absurd", 429, nil, `{"retry_after":1e300}`, relay.RateLimited, "", "HTTP 429", time.Hour, false},
		{"old message edits spent", 429, nil, `{"code":30046,"message":"Maximum number of edits to messages older than 1 hour reached. Try again later","retry_after":120}`, relay.RateLimited, "", "30046", 2 * time.Minute, false},
		{"old message edits spent, not as a 429", 400, nil, `{"code":30046,"message":"Maximum number of edits to messages older than 1 hour reached. Try again later","retry_after":90}`, relay.RateLimited, "", "30046", 90 * time.Second, false},
		{"slowmode code", 429, nil, `{"code":20016,"retry_after":5}`, relay.RateLimited, "", "20016", 5 * time.Second, false},
		{"401", 401, nil, `{"message":"401: Unauthorized","code":0}`, relay.Blocked, relay.ReasonRelayBlocked, "HTTP 401", 0, false},
		{"403 missing access", 403, nil, `{"message":"Missing Access","code":50001}`, relay.Blocked, relay.ReasonRelayBlocked, "50001", 0, false},
		{"404 unknown channel", 404, nil, `{"message":"Unknown Channel","code":10003}`, relay.Blocked, relay.ReasonRelayBlocked, "10003", 0, false},
		{"404 unknown message", 404, nil, `{"message":"Unknown Message","code":10008}`, relay.Refused, "", "10008", 0, false},
		{"400 empty", 400, nil, `{"message":"Cannot send an empty message","code":50006}`, relay.Refused, "", "50006", 0, false},
		{"400 form body", 400, nil, `{"message":"Invalid Form Body","code":50035}`, relay.Refused, "", "50035", 0, false},
		{"400 archived", 400, nil, `{"message":"Thread is archived","code":50083}`, relay.Refused, "", "50083", 0, false},
		{"413", 413, nil, ``, relay.Refused, "", "HTTP 413", 0, false},
		{"500", 500, nil, `{"message":"Internal Server Error","code":0}`, relay.Uncertain, "", "HTTP 500", 0, false},
		{"502 html", 502, nil, `<html>502 Bad Gateway</html>`, relay.Uncertain, "", "HTTP 502", 0, false},
		{"504", 504, nil, ``, relay.Uncertain, "", "HTTP 504", 0, false},
	} {
		e := classify(tc.status, tc.h, []byte(tc.body))
		if e.Kind != tc.kind || e.Reason != tc.reason || e.Code != tc.code || e.RetryAfter != tc.retry || e.Global != tc.global {
			t.Errorf("%s: got %+v, want kind %s reason %q code %q retry %s global %v", tc.name, e, tc.kind, tc.reason, tc.code, tc.retry, tc.global)
		}
	}
}

func TestInNonceWindow(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		first time.Time
		want  bool
	}{
		{time.Time{}, false},
		{now, true},
		{now.Add(-time.Minute), true},
		{now.Add(-2 * time.Minute), false},
		{now.Add(-time.Hour), false},
		{now.Add(time.Minute), false}, // the clock went back: the real gap is unknown
	} {
		if got := inNonceWindow(tc.first, now, 2*time.Minute); got != tc.want {
			t.Errorf("inNonceWindow(%v) = %v, want %v", now.Sub(tc.first), got, tc.want)
		}
	}
}

func TestNonceIsStableShortAndPerKey(t *testing.T) {
	t.Parallel()
	p := &Poster{cfg: &spec.DiscordConfig{ParentChannelID: "1"}}
	q := &Poster{cfg: &spec.DiscordConfig{ParentChannelID: "2"}}
	a, b := p.nonce("t1", "m1/0"), p.nonce("t1", "m1/0")
	if a != b || len(a) == 0 || len(a) > 25 {
		t.Errorf("nonce %q then %q: want equal, 1..25 characters", a, b)
	}
	if p.nonce("t1", "m1/1") == a || q.nonce("t1", "m1/0") == a {
		t.Error("nonces of another part or channel collide")
	}
	if p.nonce("t2", "m1/0") == a {
		t.Error("a part posted again in a thread made anew has the nonce of its copy in the deleted one")
	}
}

func TestThreadName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "session", "title": "title", string(make([]rune, 101)): string(make([]rune, 100))} {
		if got := threadName(in); got != want {
			t.Errorf("threadName(%q) = %q, want %q", in, got, want)
		}
	}
}
