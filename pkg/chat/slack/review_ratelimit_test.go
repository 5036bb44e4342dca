package slack_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// REVIEW 6: a 429 on chat.postMessage pauses only the session that got
// it; the other sessions go on calling the same method (the same route)
// and meet 429s too, over and over, in steady state.
func TestReviewSlack429PausesTheRoute(t *testing.T) {
	e := setup(t, slack.Options{})
	e.f.SetMethodLimit("chat.postMessage", 5, time.Second)
	dirs, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 8; s++ {
		for m := 0; m < 3; m++ {
			if _, err := bus.Write(dirs.Outbox, bus.Message{ID: fmt.Sprintf("%02d-%d", m, s), Session: fmt.Sprintf("s%d", s), Text: "x"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := relay.New(relay.Options{Bus: dirs, Poster: e.p, Render: relay.RenderOptions{Verbose: true, Limit: e.p.PartLimit(), Markup: relay.Mrkdwn}})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Stop(context.Background()) }()
	deadline := time.Now().Add(60 * time.Second)
	for r.Health().Posted < 32 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // measurement loop only
	}
	snap := e.f.Snapshot()
	t.Logf("posted %d, 429s served %d, relay waits %d", r.Health().Posted, snap.RateLimited, r.Health().RateLimitWaits)
	if snap.RateLimited > 1 {
		t.Errorf("%d 429s for one route: each session found the limit on its own", snap.RateLimited)
	}
}
