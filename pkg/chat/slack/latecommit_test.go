package slack_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// A post whose answer was lost (the client timed out) can still be
// stored by Slack afterwards. The relay's lookup does not find it at
// first; it must not post again until the request can no longer land
// (relay.Options.Settle), and then finds the late one: one root, never
// two.
func TestLateCommitIsNotDoubled(t *testing.T) {
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
	notFoundYet := make(chan struct{}, 1)
	log := funcr.New(func(_, args string) {
		if strings.Contains(args, "not found yet") {
			select {
			case notFoundYet <- struct{}{}:
			default:
			}
		}
	}, funcr.Options{Verbosity: 1})
	r := relay.New(relay.Options{Bus: dirs, Poster: p, Log: log, Render: relay.RenderOptions{Verbose: true, Limit: p.PartLimit(), Markup: relay.Mrkdwn},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Settle: 3 * time.Second})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Stop(context.Background()) }()
	<-h.Arrived()
	select {
	case <-notFoundYet: // timed out, looked up, not there yet
	case <-ctx(t).Done():
		t.Fatal("the relay never looked the lost post up")
	}
	h.Release() // Slack finishes the first request, late
	sn, err := e.f.WaitFor(ctx(t), func(s fakeslack.Snapshot) bool {
		return len(s.Thread(channel, firstTS(s))) >= 1
	})
	if err != nil {
		t.Fatalf("the message was not posted after its root: %v", err)
	}
	if roots := sn.Channel(channel); len(roots) != 1 {
		t.Fatalf("%d roots in the channel, want 1", len(roots))
	}
}

// firstTS is the ts of the channel's first root, "" while there is none.
func firstTS(s fakeslack.Snapshot) string {
	if roots := s.Channel(channel); len(roots) > 0 {
		return roots[0].TS
	}
	return "-"
}
