package fakediscord_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

const waitLimit = 10 * time.Second

// rewrite sends every request of one session to the fake, keeping the path,
// as DESIGN section 10 describes; the package Endpoint vars stay untouched.
type rewrite struct {
	base *url.URL
	next http.RoundTripper
}

func (rt rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = rt.base.Scheme, rt.base.Host, rt.base.Host
	return rt.next.RoundTrip(r)
}

func start(t *testing.T, opts fakediscord.Options) *fakediscord.Server {
	t.Helper()
	opts.Logf = t.Logf
	f, err := fakediscord.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func newSession(t *testing.T, f *fakediscord.Server, token string) *discordgo.Session {
	t.Helper()
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(f.URL())
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Timeout: 5 * time.Second, Transport: rewrite{base: base, next: http.DefaultTransport}}
	return s
}

// open bounds discordgo's Open, which has no handshake deadline of its own.
func open(t *testing.T, s *discordgo.Session) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- s.Open() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(waitLimit):
		t.Fatal("Open did not return")
		return nil
	}
}

// closeSession closes without the reconnect that discordgo may otherwise start.
// discordgo reads ShouldReconnectOnError unsynchronized in reconnect
// (wsapi.go:884), so it is written only when it needs to change.
func closeSession(t *testing.T, s *discordgo.Session) {
	t.Helper()
	if s.ShouldReconnectOnError {
		s.ShouldReconnectOnError = false
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func waitFor(t *testing.T, f *fakediscord.Server, what string, cond func(fakediscord.Snapshot) bool) fakediscord.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	snap, err := f.WaitFor(ctx, cond)
	if err != nil {
		t.Fatalf("waiting for %s: %v; last state %+v", what, err, snap.Tokens)
	}
	return snap
}

// eventually polls a client-side condition that has no event to wait on.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// receive waits for the first value on ch that matches.
func receive[T any](t *testing.T, ch <-chan T, what string, match func(T) bool) T {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case v := <-ch:
			if match(v) {
				return v
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// messages collects MESSAGE_CREATE events; discordgo runs handlers in goroutines.
func messages(s *discordgo.Session) <-chan *discordgo.MessageCreate {
	ch := make(chan *discordgo.MessageCreate, 100)
	s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) {
		select {
		case ch <- m:
		default:
		}
	})
	return ch
}
