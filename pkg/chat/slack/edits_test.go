package slack_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Twenty rapid edits of one message reach Slack as at most one
// chat.update a second, the last content last.
func TestRapidEditsReachSlackCoalesced(t *testing.T) {
	t.Parallel()
	const bot, channel = "xoxb-edits", "C0EDITS01"
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{bot}, Channels: []string{channel}})
	providertest.Started(t, f, err)
	cfg := &spec.Config{Name: "edits", Provider: spec.ProviderSlack, Verbosity: spec.VerbosityVerbose,
		Slack: &spec.SlackConfig{BotToken: spec.NewSecret(bot), AppToken: spec.NewSecret("xapp-edits"), WorkspaceID: f.TeamID(), ChannelID: channel, APIURL: f.URL()}}
	_, dirs := startRelay(t, cfg, chat.RelayOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), providertest.Wait)
	defer cancel()
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "00", Session: "s1", Text: "progress 0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return len(s.Messages) == 2 }); err != nil {
		t.Fatal(err)
	}
	last := ""
	for i := 1; i <= 20; i++ {
		last = fmt.Sprintf("progress %d", i)
		if _, err := bus.Write(dirs.Outbox, bus.Message{ID: fmt.Sprintf("%02d", i), Session: "s1", Text: last, Replaces: fmt.Sprintf("%02d", i-1)}); err != nil {
			t.Fatal(err)
		}
	}
	sn, err := f.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		for _, m := range s.Messages {
			if m.Text == last {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the last edit never landed: %v", err)
	}
	// Once the outbox is empty the last chat.update was answered, so it
	// is in the fake's request log (logged as its answer is decided).
	for tick := time.NewTicker(20 * time.Millisecond); ; {
		if names, err := bus.ListOutbox(dirs.Outbox); err == nil && len(names) == 0 {
			tick.Stop()
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the outbox never emptied")
		}
	}
	if len(sn.Messages) != 2 {
		t.Errorf("%d messages: an edit was posted anew", len(sn.Messages))
	}
	var updates []time.Time
	for _, r := range f.Requests() {
		if r.Path == "/api/chat.update" {
			updates = append(updates, r.At)
		}
	}
	for i := 1; i < len(updates); i++ {
		if gap := updates[i].Sub(updates[i-1]); gap < relay.EditGap {
			t.Errorf("chat.update %d came %v after the one before, under %v", i, gap, relay.EditGap)
		}
	}
	t.Logf("20 edits: %d chat.update requests", len(updates))
	// One when every edit was queued before the first was sent; two when
	// the first went out before the rest arrived.
	if len(updates) == 0 || len(updates) > 4 {
		t.Errorf("%d chat.update requests for 20 rapid edits", len(updates))
	}
}
