package slack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

// transportFake is fakeslack as providertest.Transport drives it.
type transportFake struct{ srv *fakeslack.Server }

func startTransportFake(t *testing.T) transportFake {
	t.Helper()
	srv, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{"xoxb-1"}, AppTokens: []string{"xapp-1"}, Channels: []string{"C1"}, PingInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return transportFake{srv}
}

func (f transportFake) Transport(t *testing.T) chat.Transport {
	cfg := &spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), AppToken: spec.NewSecret("xapp-1"), WorkspaceID: f.srv.TeamID(), ChannelID: "C1", APIURL: f.srv.URL()}
	return NewTransport(cfg, TransportOptions{Log: testr.New(t)})
}

func (f transportFake) DropConnections() { f.srv.DropConnections() }

func (f transportFake) RejectTokens() { f.srv.SetTokenRejected("xapp-1", true) }

func (f transportFake) MaxLive(ctx context.Context) (int, error) {
	snap, err := f.srv.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Apps["xapp-1"].Live == 0 })
	return snap.Apps["xapp-1"].MaxLive, err
}

func TestTransport(t *testing.T) {
	providertest.Transport(t, func(t *testing.T) providertest.TransportFake { return startTransportFake(t) })
}

// A refused token is terminal, and the refusal names which of the two
// tokens Slack refused, so an operator knows which to fix.
func TestRejectedTokenIsNamed(t *testing.T) {
	for _, tc := range []struct{ rejected, want string }{
		{"xapp-1", "app token (appToken)"},
		{"xoxb-1", "bot token (botToken)"},
	} {
		t.Run(tc.rejected, func(t *testing.T) {
			f := startTransportFake(t)
			f.srv.SetTokenRejected(tc.rejected, true)
			_, _, run := providertest.StartTransport(t, f.Transport(t))
			var te *chat.TerminalError
			if err := run.Wait(t); !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
				t.Fatalf("Run = %v, want a terminal InvalidCredentials", err)
			}
			if !strings.Contains(te.Message, tc.want) {
				t.Errorf("refusal %q does not name the %s", te.Message, tc.want)
			}
		})
	}
}

func TestAPIBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":             "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/":            "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/api":         "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/api/":        "http://127.0.0.1:8080/api/",
		"https://proxy.example/slack":       "https://proxy.example/slack/api/",
		"https://proxy.example/slack/api//": "https://proxy.example/slack/api/",
	} {
		if got := apiBase(in); got != want {
			t.Errorf("apiBase(%q) = %q, want %q", in, got, want)
		}
	}
}
