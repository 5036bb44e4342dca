package providertest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/relay"
)

// expectedSession is what the fake must hold for a session, rendered as
// the relay renders it: its root and its thread's texts, in order. Texts
// hold none of Slack's escaped characters, so they compare as sent.
type expectedSession struct {
	root    string
	replies []string
	closed  bool
}

func expect(msgs []bus.Message, o relay.RenderOptions) (map[string]*expectedSession, []string) {
	sessions := map[string]*expectedSession{}
	var order []string
	sorted := slices.Clone(msgs)
	slices.SortFunc(sorted, func(a, b bus.Message) int { return strings.Compare(a.ID, b.ID) })
	for _, m := range sorted {
		rd := relay.Render(m, o)
		s := sessions[m.Session]
		if s == nil {
			s = &expectedSession{root: rd.Root}
			sessions[m.Session] = s
			order = append(order, m.Session)
		}
		s.replies = append(s.replies, rd.Parts...)
		if rd.Close {
			s.replies = append(s.replies, rd.CloseLine)
			s.closed = true
		}
	}
	return sessions, order
}

// checkDelivered says how the fake and the bus differ from every message
// of msgs posted exactly once, in order, and none left in the outbox.
func checkDelivered(s Subject, f Fake, o relay.RenderOptions, d bus.Dirs, msgs []bus.Message) []string {
	var bad []string
	want, order := expect(msgs, o)
	places := f.Places()
	byRoot := map[string]Place{}
	var roots []string
	for _, p := range places {
		roots = append(roots, p.Root)
		byRoot[p.Root] = p
	}
	total := 0
	for _, sid := range order {
		w := want[sid]
		total += 1 + len(w.replies)
		if n := count(roots, w.root); n != 1 {
			bad = append(bad, fmt.Sprintf("session %s: root %q at the fake %d times, want once", sid, w.root, n))
		}
		got := byRoot[w.root]
		if got.Threads != 1 {
			bad = append(bad, fmt.Sprintf("session %s: %d threads, want 1", sid, got.Threads))
		}
		if !slices.Equal(got.Replies, w.replies) {
			bad = append(bad, fmt.Sprintf("session %s: thread holds %d texts, want %d; first difference %s",
				sid, len(got.Replies), len(w.replies), firstDiff(got.Replies, w.replies)))
		}
		if s.ClosesThreads && w.closed && !got.Closed {
			bad = append(bad, fmt.Sprintf("session %s: closed, but its thread is not archived and locked", sid))
		}
	}
	if n := f.Messages(); n != total {
		bad = append(bad, fmt.Sprintf("the fake holds %d messages, want %d", n, total))
	}
	if names, err := bus.ListOutbox(d.Outbox); err != nil || len(names) != 0 {
		bad = append(bad, fmt.Sprintf("outbox holds %v (%v), want nothing", names, err))
	}
	if n, err := bus.CountFailed(d); err != nil || n != 0 {
		bad = append(bad, fmt.Sprintf("failed/ holds %d (%v), want nothing", n, err))
	}
	if ents, err := os.ReadDir(d.Sent); err != nil || len(ents) != len(msgs) {
		bad = append(bad, fmt.Sprintf("sent/ holds %d entries (%v), want %d", len(ents), err, len(msgs)))
	}
	return bad
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

func firstDiff(got, want []string) string {
	short := func(s string) string {
		if len(s) > 60 {
			return s[:60] + "…"
		}
		return s
	}
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("at %d: missing %q", i, short(want[i]))
		case i >= len(want):
			return fmt.Sprintf("at %d: extra %q", i, short(got[i]))
		case got[i] != want[i]:
			return fmt.Sprintf("at %d: %q, want %q", i, short(got[i]), short(want[i]))
		}
	}
	return "none"
}

// newBus makes the bus of the suite's daemon name under a fresh agent dir.
func newBus(t *testing.T) (string, bus.Dirs) {
	dir := t.TempDir()
	d, err := bus.Paths(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return dir, d
}

func publish(t *testing.T, d bus.Dirs, msgs []bus.Message) {
	t.Helper()
	for _, m := range msgs {
		if _, err := bus.Write(d.Outbox, m); err != nil {
			t.Fatal(err)
		}
	}
}

// outboxWatch tells when the outbox is empty, on its change events.
type outboxWatch struct {
	d       bus.Dirs
	changes <-chan struct{}
}

func watchOutbox(t *testing.T, d bus.Dirs) *outboxWatch {
	w, err := dirwatch.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	ch, cancel, err := w.Subscribe(d.Outbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return &outboxWatch{d: d, changes: ch}
}

func (w *outboxWatch) empty() (bool, error) {
	names, err := bus.ListOutbox(w.d.Outbox)
	return len(names) == 0, err
}

// waitEmpty waits until the outbox is empty; an error when c exits first
// or ctx ends.
func (w *outboxWatch) waitEmpty(ctx context.Context, c *relayChild) error {
	for {
		ok, err := w.empty()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-w.changes:
		case <-c.exited:
			return fmt.Errorf("the child exited with the outbox not empty (%s)", c.tail())
		case <-ctx.Done():
			names, _ := bus.ListOutbox(w.d.Outbox)
			return fmt.Errorf("outbox still holds %d messages: %w (%s)", len(names), ctx.Err(), c.tail())
		}
	}
}
