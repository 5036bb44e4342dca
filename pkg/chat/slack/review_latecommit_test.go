package slack_test

import (
	"context"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// REVIEW 8: a post whose answer timed out may still be stored by Slack
// afterwards. The relay looks it up at once (MinBackoff), finds nothing
// yet, posts again: two roots once Slack finishes the first request.
func TestReviewSlackLateCommitIsNotDoubled(t *testing.T) {
	e := setup(t, slack.Options{})
	p := newPoster(t, e.f, channel, slack.Options{Timeout: 300 * time.Millisecond})
	dirs, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	h := e.f.HoldNextPost()
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "01", Session: "s", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	r := relay.New(relay.Options{Bus: dirs, Poster: p, Render: relay.RenderOptions{Verbose: true, Limit: p.PartLimit(), Markup: relay.Mrkdwn},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Stop(context.Background()) }()
	<-h.Arrived()
	// the relay gives up on the held request, looks up, posts again
	if _, err := e.f.WaitFor(ctx(t), func(s fakeslack.Snapshot) bool { return len(s.Channel(channel)) >= 1 }); err != nil {
		t.Fatalf("no re-post: %v", err)
	}
	h.Release() // Slack finishes the first request
	if _, err := e.f.WaitFor(ctx(t), func(s fakeslack.Snapshot) bool { return len(s.Channel(channel)) >= 2 }); err != nil {
		t.Skipf("no double: %v", err)
	}
	t.Errorf("the root is in the channel twice: %d roots", len(e.f.Snapshot().Channel(channel)))
}
