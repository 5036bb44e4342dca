package relay

import (
	"context"
	"strings"
	"sync"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// The outcome of an ask that pings is cut at the full limit, the ask at
// a limit shortened by its mentions: the outcome can have fewer parts
// than the ask, and the ask's last part, the one with the buttons, must
// be edited all the same, or its buttons stay.
func TestOutcomeEditsTheButtonsPart(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Verbose: true, Limit: 100, Ping: []string{"U1", "U2"}}
	var mu sync.Mutex
	var buttonsOn string
	h.askPosted = func(_ context.Context, m bus.Message, place, remote string) error {
		mu.Lock()
		buttonsOn = remote
		mu.Unlock()
		return nil
	}
	q := strings.Repeat("word ", 12) + "ok?" // 63 code points
	ask := bus.Message{ID: "01JASK", Session: "s", Event: bus.EventAsk, Text: q,
		Choices: []string{"Yes", "No"}, ExpiresAt: "2026-12-06T09:00:00.000Z"}.WithDefaults()
	h.send(ask)
	h.start()
	h.waitFor("ask posted", h.outboxEmpty)
	t.Logf("ask parts: %q", Render(ask, h.render).Parts)
	out := bus.Message{ID: bus.OutcomeID("01JASK"), Session: "s", Event: bus.EventMessage, Replaces: "01JASK",
		Level: bus.LevelAction, Text: q + "\n\nDecided: Yes, by Alice"}
	t.Logf("outcome parts: %q", Render(out, h.render).Parts)
	h.send(out)
	h.waitFor("outcome posted", h.outboxEmpty)
	mu.Lock()
	defer mu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.edits[buttonsOn]; !ok {
		t.Fatalf("the part with the buttons (%s) was never edited: its buttons stay; edits %v", buttonsOn, f.edits)
	}
}
