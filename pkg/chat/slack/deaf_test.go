package slack_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// fenced is a claim that always holds: no other daemon runs against the
// test's bus. NewRelay uses Fence alone.
type fenced struct{ ownership.Claim }

func (fenced) Fence() error { return nil }

// A socket that stays up and delivers nothing: the sweep lands the reply
// it missed, counts it missed, and the transport connects again, after
// which replies come live again.
func TestDeafConnection(t *testing.T) {
	t.Parallel()
	const bot, app, channel, user = "xoxb-deaf", "xapp-deaf", "C0DEAF001", "U0DEAFUSER"
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{bot}, AppTokens: []string{app}, Channels: []string{channel}, PingInterval: 200 * time.Millisecond})
	providertest.Started(t, f, err)
	cfg := &spec.Config{Name: "deaf", Provider: spec.ProviderSlack, Verbosity: spec.VerbosityVerbose, InboundSweep: spec.DefaultInboundSweep,
		Slack: &spec.SlackConfig{BotToken: spec.NewSecret(bot), AppToken: spec.NewSecret(app), WorkspaceID: f.TeamID(), ChannelID: channel,
			AuthorizedUserIDs: []string{user}, APIURL: f.URL()}}
	port := chat.NewInboundPort()
	rc, dirs := startRelay(t, cfg, chat.RelayOptions{Inbound: port, InboundSweep: time.Second})
	health, _, _ := providertest.StartTransport(t, slack.NewTransport(cfg.Slack, slack.TransportOptions{Log: testr.New(t), Inbound: port}))
	health.WaitFor(t, true)

	ctx, cancel := context.WithTimeout(context.Background(), providertest.Wait)
	defer cancel()
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "01", Session: "s1", Event: bus.EventOpen, Title: "deaf"}); err != nil {
		t.Fatal(err)
	}
	sn, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return len(s.Channel(channel)) == 1 })
	if err != nil {
		t.Fatal(err)
	}
	root := sn.Channel(channel)[0].TS
	relay := func(what string, cond func(*ownership.RelayState) bool) *ownership.RelayState {
		t.Helper()
		for {
			if s := rc.RelayState(); s != nil && cond(s) {
				return s
			}
			select {
			case <-rc.RelayChanged():
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("%s: relay %+v", what, rc.RelayState())
			}
		}
	}
	reply := func(text string) {
		t.Helper()
		if _, err := f.InjectMessage(channel, user, text, root); err != nil {
			t.Fatal(err)
		}
	}

	reply("heard live")
	relay("the live reply", func(s *ownership.RelayState) bool { return s.InboxLanded == 1 })

	if n := f.Deafen(); n != 1 {
		t.Fatalf("deafened %d sockets", n)
	}
	reply("not heard")
	// Counted once the sweep's read is over, after its landing.
	s := relay("the sweep's landing, counted missed", func(s *ownership.RelayState) bool { return s.InboxLanded == 2 && s.InboxMissed > 0 })
	if s.InboxMissed != 1 {
		t.Errorf("missed %d, want the one reply the socket did not deliver", s.InboxMissed)
	}
	if s.InboxLagMs <= 0 {
		t.Errorf("lag %d ms of a reply the sweep found", s.InboxLagMs)
	}
	down := health.WaitFor(t, false)
	if !strings.Contains(down.Err, "did not deliver") {
		t.Errorf("reconnect reported as %q, want why", down.Err)
	}
	health.WaitFor(t, true)
	if _, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Apps[app].Connections == 2 }); err != nil {
		t.Fatalf("no new socket: %v", err)
	}

	reply("heard again")
	s = relay("the reply after the reconnect", func(s *ownership.RelayState) bool { return s.InboxLanded == 3 })
	if s.InboxMissed != 1 {
		t.Errorf("missed %d after the reconnect, want still 1", s.InboxMissed)
	}
}

// startRelay runs the daemon's relay for cfg (the Slack provider, a bus
// in a temporary dir) until the test ends, with short back-offs.
func startRelay(t *testing.T, cfg *spec.Config, o chat.RelayOptions) (chat.RelayComponent, bus.Dirs) {
	t.Helper()
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	o.MinBackoff, o.MaxBackoff, o.Settle = 10*time.Millisecond, 100*time.Millisecond, 3*time.Second
	rc, err := chat.NewRelay(slack.New(slack.Options{Timeout: 2 * time.Second, PostInterval: -1}), cfg, dir, testr.New(t), o)(fenced{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.Stop(ctx)
	})
	return rc, dirs
}
