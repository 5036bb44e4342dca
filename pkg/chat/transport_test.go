package chat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

const testTimeout = 20 * time.Second

// healthLog collects reports so a test can wait for the next one.
type healthLog chan Health

func (h healthLog) report(v Health) { h <- v }

func (h healthLog) waitFor(t *testing.T, healthy bool) Health {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case v := <-h:
			if v.Healthy == healthy {
				return v
			}
		case <-deadline:
			t.Fatalf("no report with healthy=%v within %v", healthy, testTimeout)
		}
	}
}

// run is a transport's Run in progress; done closes when it returns.
type run struct {
	done chan struct{}
	err  error
}

func startTransport(t *testing.T, tr Transport) (healthLog, context.CancelFunc, *run) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := make(healthLog, 64)
	r := &run{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = tr.Run(ctx, h.report)
	}()
	t.Cleanup(func() {
		cancel()
		r.wait(t)
	})
	return h, cancel, r
}

func (r *run) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(testTimeout):
		t.Fatalf("transport did not return within %v", testTimeout)
		return nil
	}
}

func discordFake(t *testing.T) *fakediscord.Server {
	t.Helper()
	srv, err := fakediscord.Start(fakediscord.Options{Tokens: []string{"tok-d"}, Channels: []string{"chan-3"}, HeartbeatInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func discordCfg(srv *fakediscord.Server, token string) *spec.DiscordConfig {
	return &spec.DiscordConfig{BotToken: spec.NewSecret(token), ApplicationID: "app", GuildID: srv.GuildID(), ParentChannelID: "chan-3", APIURL: srv.URL()}
}

func TestDiscordHealthAndReconnect(t *testing.T) {
	srv := discordFake(t)
	h, cancel, done := startTransport(t, NewDiscord(discordCfg(srv, "tok-d"), DiscordOptions{Log: testr.New(t)}))
	h.waitFor(t, true)

	srv.DropConnections()
	if v := h.waitFor(t, false); v.Err == "" {
		t.Error("unhealthy report without a reason")
	}
	h.waitFor(t, true)

	cancel()
	if err := done.wait(t); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	// The fake notices the closed connection on its own time: wait for it.
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	snap, _ := srv.WaitFor(wctx, func(s fakediscord.Snapshot) bool { return s.Tokens["tok-d"].Live == 0 })
	if st := snap.Tokens["tok-d"]; st.Live != 0 || st.MaxLive != 1 {
		t.Errorf("sessions: %+v, want none live and never two at once", st)
	}
}

func TestDiscordRejectedToken(t *testing.T) {
	srv := discordFake(t)
	srv.SetTokenRejected("tok-d", true)
	_, _, done := startTransport(t, NewDiscord(discordCfg(srv, "tok-d"), DiscordOptions{Log: testr.New(t)}))
	var te *TerminalError
	if err := done.wait(t); !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
		t.Fatalf("Run = %v, want a terminal InvalidCredentials", err)
	}
}

func slackFake(t *testing.T) *fakeslack.Server {
	t.Helper()
	srv, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{"xoxb-1"}, AppTokens: []string{"xapp-1"}, Channels: []string{"C1"}, PingInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func slackCfg(srv *fakeslack.Server, app string) *spec.SlackConfig {
	return &spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), AppToken: spec.NewSecret(app), WorkspaceID: srv.TeamID(), ChannelID: "C1", APIURL: srv.URL()}
}

func TestSlackHealthAndReconnect(t *testing.T) {
	srv := slackFake(t)
	h, cancel, done := startTransport(t, NewSlack(slackCfg(srv, "xapp-1"), SlackOptions{Log: testr.New(t)}))
	h.waitFor(t, true)
	srv.DropConnections()
	h.waitFor(t, false)
	h.waitFor(t, true)
	cancel()
	if err := done.wait(t); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	if st := srv.Snapshot().Apps["xapp-1"]; st.MaxLive != 1 {
		t.Errorf("sessions: %+v, want never two at once", st)
	}
}

// A refused token is terminal, and the refusal names which of the two
// tokens Slack refused, so an operator knows which to fix.
func TestSlackRejectedToken(t *testing.T) {
	for _, tc := range []struct{ rejected, want string }{
		{"xapp-1", "app token (appToken)"},
		{"xoxb-1", "bot token (botToken)"},
	} {
		t.Run(tc.rejected, func(t *testing.T) {
			srv := slackFake(t)
			srv.SetTokenRejected(tc.rejected, true)
			_, _, done := startTransport(t, NewSlack(slackCfg(srv, "xapp-1"), SlackOptions{Log: testr.New(t)}))
			var te *TerminalError
			if err := done.wait(t); !errors.As(err, &te) || te.Reason != daemonproto.ReasonInvalidCredentials {
				t.Fatalf("Run = %v, want a terminal InvalidCredentials", err)
			}
			if !strings.Contains(te.Message, tc.want) {
				t.Errorf("refusal %q does not name the %s", te.Message, tc.want)
			}
		})
	}
}
