package slack_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/spec"
)

// Asks through the relay, the inbound side and the transport in one
// process: pingOnAsk mentions the authorized user on the ask alone; each
// click is settled and acked well within Slack's 3 s (the ack comes only
// once a decision is durable, so the time to it bounds the time to
// durable); the deciding click lands one decision and the question loses
// its buttons; a stranger's click is answered privately.
func TestAskClicksWithinSlacksDeadline(t *testing.T) {
	t.Parallel()
	const bot, app, ch, user, stranger = "xoxb-asktimes", "xapp-asktimes", "C0ASKTIME", "U0ASKUSER", "U0STRANGER"
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{bot}, AppTokens: []string{app}, Channels: []string{ch}, PingInterval: 200 * time.Millisecond})
	providertest.Started(t, f, err)
	cfg := &spec.Config{Name: "asktimes", Provider: spec.ProviderSlack, Verbosity: spec.VerbosityVerbose, PingOnAsk: true,
		Slack: &spec.SlackConfig{BotToken: spec.NewSecret(bot), AppToken: spec.NewSecret(app), WorkspaceID: f.TeamID(), ChannelID: ch,
			AuthorizedUserIDs: []string{user}, APIURL: f.URL()}}
	port := chat.NewInboundPort()
	_, dirs := startRelay(t, cfg, chat.RelayOptions{Inbound: port})
	health, _, _ := providertest.StartTransport(t, slack.NewTransport(cfg.Slack, slack.TransportOptions{Log: testr.New(t), Inbound: port}))
	health.WaitFor(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	write := func(m bus.Message) {
		t.Helper()
		if _, err := bus.Write(dirs.Outbox, m); err != nil {
			t.Fatal(err)
		}
	}
	write(bus.Message{ID: "m00", Session: "s1", Event: bus.EventOpen, Title: "asks", Text: "Opening."})
	// click returns how long after its delivery the click's envelope was
	// acked.
	click := func(ts, data, who string) (time.Duration, fakeslack.Snapshot) {
		t.Helper()
		in, err := f.Click(fakeslack.Click{App: app, Channel: ch, TS: ts, ActionID: data, User: who, Stale: true})
		if err != nil {
			t.Fatal(err)
		}
		var e fakeslack.Envelope
		sn, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
			i := slices.IndexFunc(s.Envelopes, func(e fakeslack.Envelope) bool { return e.ID == in.EnvelopeID })
			e = s.Envelopes[i]
			return e.Acked
		})
		if err != nil {
			t.Fatalf("click never acked: %+v", e)
		}
		return e.AckedAt.Sub(e.DeliveredAt[0]), sn
	}
	var decided, refused []time.Duration
	const asks = 8
	for i := range asks {
		id := fmt.Sprintf("q%02d", i)
		write(bus.Message{ID: id, Session: "s1", Event: bus.EventAsk, Text: "May I run step " + id + "?",
			Choices: []string{"Approve", "Deny"}, ExpiresAt: bus.InboxTime(time.Now().Add(time.Hour))})
		var ask fakeslack.Message
		if _, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
			for _, m := range s.Messages {
				if len(m.PostedButtons) > 0 && strings.Contains(m.Text, id) {
					ask = m
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatalf("ask %s never posted with buttons", id)
		}
		// The relay records an ask as posted (AskPosted) before it moves it
		// to sent/; a click before that finds no ask.
		for tick := time.NewTicker(10 * time.Millisecond); ; <-tick.C {
			if names, err := bus.ListOutbox(dirs.Outbox); err == nil && len(names) == 0 {
				tick.Stop()
				break
			}
			if ctx.Err() != nil {
				t.Fatal("the outbox never emptied")
			}
		}
		if !strings.HasPrefix(ask.Text, "<@"+user+">\n") {
			t.Fatalf("ask %s does not mention the authorized user: %q", id, ask.Text)
		}
		d, sn := click(ask.TS, ask.PostedButtons[0].ActionID, stranger)
		refused = append(refused, d)
		if got := sn.Ephemerals[len(sn.Ephemerals)-1]; got.User != stranger || got.Text != "You may not decide this question." || got.ThreadTS != ask.ThreadTS {
			t.Fatalf("the stranger was answered %+v", got)
		}
		d, _ = click(ask.TS, ask.PostedButtons[1].ActionID, user)
		decided = append(decided, d)
		// The decision is durable (published in the inbox) before the ack.
		files, _ := filepath.Glob(filepath.Join(dirs.Inbox, "s1", "*-"+id+".json"))
		if len(files) != 1 {
			t.Fatalf("decision files of %s at its ack: %q", id, files)
		}
		if _, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
			for _, m := range s.Messages {
				if m.TS == ask.TS {
					return m.Buttons == nil && strings.Contains(m.Text, "Decided: Deny")
				}
			}
			return false
		}); err != nil {
			t.Fatalf("ask %s not edited to its outcome", id)
		}
	}
	for _, m := range f.Snapshot().Messages {
		if len(m.PostedButtons) == 0 && strings.Contains(m.Text, "<@") {
			t.Fatalf("a message that is no ask mentions someone: %q", m.Text)
		}
	}
	names, err := os.ReadDir(filepath.Join(dirs.Inbox, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != asks {
		t.Fatalf("%d inbox files for %d decisions", len(names), asks)
	}
	for what, ds := range map[string][]time.Duration{"deciding click acked": decided, "refused click acked": refused} {
		slices.Sort(ds)
		p50, worst := ds[len(ds)/2], ds[len(ds)-1]
		t.Logf("%s: from the click's delivery, p50 %v, max %v (%d clicks; Slack's deadline %v)", what, p50, worst, len(ds), fakeslack.DefaultAckTimeout)
		if worst >= fakeslack.DefaultAckTimeout {
			t.Errorf("a %s click was acked %v after its delivery, past Slack's %v", what, worst, fakeslack.DefaultAckTimeout)
		}
	}
}
