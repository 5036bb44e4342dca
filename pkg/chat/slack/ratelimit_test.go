package slack_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// A 429 one caller met holds back every later call to the method through
// the same Poster (the other sessions): they wait, cancellably, instead of
// going out into the same limit.
func TestA429HoldsBackTheMethod(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	root := post(t, e, "m1/0", "", "root")
	e.f.RateLimitNext(1, 30*time.Second)
	_, err := e.p.Post(ctx(t), relay.Part{Key: "m2/0", Thread: root, Text: "a", FirstAttempt: time.Now()})
	if re := relayErr(t, err, relay.RateLimited); re.RetryAfter < 29*time.Second {
		t.Fatalf("RetryAfter %s, want Slack's 30s", re.RetryAfter)
	}
	calls := e.f.Snapshot().Posts

	// Another session's post waits for the limit; its context ends first.
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = e.p.Post(short, relay.Part{Key: "m3/0", Thread: root, Text: "b", FirstAttempt: time.Now()})
	if re := relayErr(t, err, relay.RateLimited); re.RetryAfter <= 0 {
		t.Fatalf("RetryAfter %s, want the wait left", re.RetryAfter)
	}
	if got := e.f.Snapshot().Posts; got != calls {
		t.Fatalf("%d chat.postMessage calls after the 429, want none", got-calls)
	}
	// The limit is the method's: chat.update goes on.
	if err := e.p.Edit(ctx(t), relay.EditRequest{RemoteID: root, Text: "edited"}); err != nil {
		t.Fatalf("Edit during a chat.postMessage limit: %v", err)
	}
}

// Many sessions at once through one Poster against the fake's limit of 5
// chat.postMessage a second, paced under it: the limit is hardly ever met,
// instead of once per session and message (35 429s for 32 posts unpaced).
func TestSessionsShareTheRateLimit(t *testing.T) {
	// Paced at 4 a second: the fake's limit, with a margin for the
	// requests' own jitter (at exactly 5 a second 0-1 429s are seen).
	e := setup(t, slack.Options{PostInterval: 250 * time.Millisecond, PostBurst: 1})
	e.f.SetMethodLimit("chat.postMessage", 5, time.Second)
	dirs, err := bus.Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	const sessions, messages = 8, 3
	for s := range sessions {
		for m := range messages {
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
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	want := sessions * (1 + messages) // a root and the parts
	snap, err := e.f.WaitFor(c, func(s fakeslack.Snapshot) bool { return len(s.Messages) >= want })
	if err != nil {
		t.Fatalf("%d of %d messages posted: %v", len(snap.Messages), want, err)
	}
	t.Logf("%d posts, %d 429s served, relay waits %d", len(snap.Messages), snap.RateLimited, r.Health().RateLimitWaits)
	if snap.RateLimited > 1 {
		t.Errorf("%d 429s for one route: the sessions found the limit each on its own", snap.RateLimited)
	}
}
