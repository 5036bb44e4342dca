package telegram

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// Through the relay: a group with 1,000 messages the daemon was sent,
// and the relay's first root, whose answer is lost. The attempt journals
// the chat's top, the lookup starts there and finds the root: the
// session goes on, every message posted once, rather than waiting for
// good on a probe that reached its bound below the chat's top.
func TestRelayFindsALostFirstRootInALongHistory(t *testing.T) {
	f := startFake(t, false)
	state := t.TempDir()
	last := longHistory(t, f, state)

	dirs, err := bus.Paths(t.TempDir(), "bot")
	if err == nil {
		err = bus.EnsureDirs(dirs)
	}
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 1)
	p := newPosterIn(t, f, state)
	r := relay.New(relay.Options{Bus: dirs, Poster: p, Log: testr.New(t),
		Render:     relay.RenderOptions{Verbose: true, Limit: p.PartLimit(), Markup: relay.Plain},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Settle: 3 * time.Second,
		Changed: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	f.AcceptThenFail(1, faketelegram.FailCut) // the root: stored, its answer cut
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Stop(ctx)
	})
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "01", Session: "s", Text: "hello from the agent"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for posted := false; !posted; {
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond): // the move to sent/ pokes nothing
		case <-deadline:
			t.Fatalf("not posted before the deadline: %+v", r.Health())
		}
		names, err := bus.ListOutbox(dirs.Outbox)
		posted = err == nil && len(names) == 0 && r.Health().Pending == 0
	}
	sn := f.Snapshot()
	if len(sn.Duplicates) != 0 {
		t.Errorf("posted twice: %v", sn.Duplicates)
	}
	var texts []string
	for _, m := range sn.Messages {
		if m.ID > last {
			texts = append(texts, m.Text)
		}
	}
	if len(texts) != 2 || !strings.Contains(texts[0], "s") || texts[1] != "hello from the agent" {
		t.Errorf("the bot's messages above the chatter are %q, want the root and the message, once each", texts)
	}
}
