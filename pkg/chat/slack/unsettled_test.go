package slack_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// A click the inbound side could not settle in time is neither acked nor
// answered: Slack delivers it again, and only a settled click is acked.
func TestUnsettledClickIsNotAcked(t *testing.T) {
	t.Parallel()
	const bot, app, ch = "xoxb-unsettled", "xapp-unsettled", "C0UNSETTL"
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{bot}, AppTokens: []string{app}, Channels: []string{ch}, PingInterval: 200 * time.Millisecond})
	providertest.Started(t, f, err)
	cfg := &spec.SlackConfig{BotToken: spec.NewSecret(bot), AppToken: spec.NewSecret(app), WorkspaceID: f.TeamID(), ChannelID: ch, APIURL: f.URL()}
	// No inbound side ever attaches to the port: each Decide fails once
	// its time is up.
	health, _, _ := providertest.StartTransport(t, slack.NewTransport(cfg, slack.TransportOptions{Log: testr.New(t), Inbound: chat.NewInboundPort()}))
	health.WaitFor(t, true)
	p, err := slack.NewPoster(cfg, slack.Options{PostInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), providertest.Wait)
	defer cancel()
	ts, err := p.Post(ctx, relay.Part{Key: "q01/0", Text: "May I?", FirstAttempt: time.Now(),
		Choices: []relay.Choice{{Data: "q01:0", Label: "Approve"}, {Data: "q01:1", Label: "Deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Click(fakeslack.Click{App: app, Channel: ch, TS: ts, ActionID: "q01:0", User: "U0ALICE01"})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		for _, e := range s.Envelopes {
			if e.ID == in.EnvelopeID {
				return e.Acked || e.Deliveries >= 2
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range sn.Envelopes {
		if e.ID == in.EnvelopeID && e.Acked {
			t.Fatalf("an unsettled click was acked: %+v", e)
		}
	}
	if len(sn.Ephemerals) != 0 {
		t.Fatalf("an unsettled click was answered: %+v", sn.Ephemerals)
	}
}
