package faketelegram_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

const waitLimit = 10 * time.Second

var (
	chat  = faketelegram.DefaultChatID
	alice = faketelegram.User{ID: 1001, FirstName: "Alice", Username: "alice_w"}
)

func start(t *testing.T, opts faketelegram.Options) *faketelegram.Server {
	t.Helper()
	opts.Logf = t.Logf
	f, err := faketelegram.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// newBot is the real client against the fake; bot.New calls getMe.
func newBot(t *testing.T, f *faketelegram.Server, opts ...bot.Option) *bot.Bot {
	t.Helper()
	b, err := bot.New(f.Token(), append([]bot.Option{bot.WithServerURL(f.URL())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return c
}

// wantBadRequest checks that err is the library's bad request with the
// service's exact description.
func wantBadRequest(t *testing.T, err error, description string) {
	t.Helper()
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.HasSuffix(err.Error(), ", Bad Request: "+description) {
		t.Fatalf("error %v, want bad request %q", err, description)
	}
}

// reply is a Bot API answer as it comes over the wire.
type reply struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// call posts a url-encoded request the way curl would, for what the
// library hides (statuses, headers, raw offsets).
func call(t *testing.T, f *faketelegram.Server, method string, form url.Values) (*http.Response, reply) {
	t.Helper()
	resp, err := http.PostForm(f.URL()+"/bot"+f.Token()+"/"+method, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("%s: decode: %v", method, err)
	}
	return resp, r
}

// pollRaw is a long poll whose failure is an answer with OK false.
func pollRaw(t *testing.T, f *faketelegram.Server) reply {
	t.Helper()
	resp, err := http.PostForm(f.URL()+"/bot"+f.Token()+"/getUpdates", url.Values{"timeout": {"30"}})
	if err != nil {
		return reply{Description: err.Error()}
	}
	defer resp.Body.Close()
	var r reply
	_ = json.NewDecoder(resp.Body).Decode(&r)
	return r
}

func waitFor(t *testing.T, f *faketelegram.Server, what string, cond func(faketelegram.Snapshot) bool) faketelegram.Snapshot {
	t.Helper()
	snap, err := f.WaitFor(ctx(t), cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
	return snap
}
