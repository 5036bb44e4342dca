package providertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/relay"
)

// crashSession is the session every matrix case posts: an open (root,
// thread, one part), a short message, a long text of three parts, and a
// close (its text, the closing line, the archive).
func crashSession(limit int) []bus.Message {
	var long strings.Builder
	for i := 0; long.Len() < limit*5/2; i++ {
		fmt.Fprintf(&long, "Paragraph %d of the long text, which the relay splits on paragraph boundaries. %s\n\n",
			i, strings.Repeat("word ", 40))
	}
	const s = "sess-crash"
	return []bus.Message{
		{ID: "m01", Session: s, Event: bus.EventOpen, Title: "Crash matrix", Text: "Opening the session."},
		{ID: "m02", Session: s, Event: bus.EventMessage, Level: bus.LevelAction, Text: "A short line."},
		{ID: "m03", Session: s, Event: bus.EventMessage, Text: strings.TrimSpace(long.String())},
		{ID: "m04", Session: s, Event: bus.EventClose, Text: "Done."},
	}
}

// crashCase kills the relay at one labelled step of one key.
type crashCase struct {
	step, key string
	// held: the child pauses at <op>:after-attempt, the fake holds the
	// request that follows, and the child is killed while it is held.
	held bool
	// nonceWindow, when set, is the nonce window of both children's
	// poster and of the fake: tiny, so the lookup after the restart
	// reads the history (the content match) instead of posting with the
	// nonce, and a blind re-post would double.
	nonceWindow time.Duration
}

func (c crashCase) name() string {
	n := c.step + "@" + c.key
	if c.held {
		n = "held-" + n
	}
	if c.nonceWindow != 0 {
		n = "history-" + n
	}
	return strings.ReplaceAll(n, "/", "_")
}

func matrixCases(s Subject) []crashCase {
	var cs []crashCase
	targets := []struct{ op, key string }{
		{"root", "m01/root"}, {"thread", "m01/thread"},
		{"part", "m01/0"}, // the open's one part, the first in the thread
		{"part", "m03/1"}, // the middle of the long text
		{"part", "m04/1"}, // the closing line
		{"archive", "m04/archive"},
	}
	for _, tg := range targets {
		for _, st := range []string{"before-attempt", "after-attempt", "accepted", "after-done"} {
			cs = append(cs, crashCase{step: tg.op + ":" + st, key: tg.key})
		}
	}
	cs = append(cs, crashCase{step: "message:before-sent", key: "m01"}, crashCase{step: "message:before-sent", key: "m03"},
		crashCase{step: "message:before-sent", key: "m04"})
	for _, tg := range []struct{ op, key string }{{"root", "m01/root"}, {"thread", "m01/thread"}, {"part", "m03/1"}, {"part", "m04/0"}} {
		if !s.ThreadRequest && tg.op == "thread" {
			continue // a thread that is its root's replies makes no request to hold
		}
		cs = append(cs, crashCase{step: tg.op + ":after-attempt", key: tg.key, held: true})
	}
	if s.NonceWindow {
		const tiny = time.Millisecond
		cs = append(cs,
			crashCase{step: "root:accepted", key: "m01/root", nonceWindow: tiny},
			crashCase{step: "part:accepted", key: "m01/0", nonceWindow: tiny},
			crashCase{step: "part:accepted", key: "m03/1", nonceWindow: tiny},
			crashCase{step: "part:after-attempt", key: "m03/1", held: true, nonceWindow: tiny},
			crashCase{step: "root:after-attempt", key: "m01/root", held: true, nonceWindow: tiny},
		)
	}
	return cs
}

// The crash matrix: the relay's process SIGKILLed at every labelled step
// of a session's root and thread creation, of its parts (the first, the
// middle of a long text, the closing line), of its archive and before
// the move to sent/, and while a request is held at the service; a new
// process without the failpoint then finishes. Every message ends at the
// fake exactly once, in order, the thread made once, the outbox empty.
func crashMatrix(t *testing.T, s Subject, top string) {
	for _, c := range matrixCases(s) {
		t.Run(c.name(), func(t *testing.T) { runCrashCase(t, s, top, c) })
	}
}

// crashThenRecover runs the relay in a child that stops at c's step:
// killed there, or, for a held case, let go on until its next request is
// held at the fake, then killed (the fake then finishes the request or
// not, as the service may). A second child then runs until the outbox is
// empty; it is returned killed, for its log.
func crashThenRecover(ctx context.Context, t *testing.T, top, dir string, f Fake, watch *outboxWatch, c crashCase) *relayChild {
	t.Helper()
	env := childEnvOf(f)
	if c.nonceWindow != 0 {
		env = append(env, "RELAY_NONCE_WINDOW="+c.nonceWindow.String())
	}
	mode := "crash"
	if c.held {
		mode = "pause"
	}
	first := startChild(t, top, dir, append(env, "RELAY_CRASH_AT="+c.step, "RELAY_CRASH_KEY="+c.key, "RELAY_CRASH_MODE="+mode)...)
	if _, err := first.waitLine(ctx, "STEP "+c.step+" "+c.key); err != nil {
		t.Fatal(err)
	}
	var afterKill func(context.Context) error
	if c.held {
		var held func(context.Context) error
		held, afterKill = f.HoldNext()
		if _, err := first.stdin.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
		if err := held(ctx); err != nil {
			t.Fatalf("waiting for the held request: %v", err)
		}
	}
	first.kill(t)
	if afterKill != nil {
		if err := afterKill(ctx); err != nil {
			t.Fatalf("after the kill: %v", err)
		}
	}
	second := startChild(t, top, dir, env...)
	if err := watch.waitEmpty(ctx, second); err != nil {
		t.Fatal(err)
	}
	second.kill(t)
	return second
}

// childEnvOf is the environment that points a child at f.
func childEnvOf(f Fake) []string { return []string{"RELAY_URL=" + f.URL()} }

func runCrashCase(t *testing.T, s Subject, top string, c crashCase) {
	s.skipGap(t, top)
	ctx, cancel := context.WithTimeout(context.Background(), crashWait)
	defer cancel()
	f := s.Start(t, c.nonceWindow)
	render := s.render(t)
	dir, d := newBus(t)
	msgs := crashSession(render.Limit)
	if n := len(relay.Render(msgs[2], render).Parts); n != 3 {
		t.Fatalf("the long text renders to %d parts, want 3", n)
	}
	publish(t, d, msgs)
	watch := watchOutbox(t, d)
	second := crashThenRecover(ctx, t, top, dir, f, watch, c)
	for _, b := range checkDelivered(s, f, render, d, msgs) {
		t.Error(b)
	}
	if t.Failed() {
		t.Log(second.tail())
	}
}
