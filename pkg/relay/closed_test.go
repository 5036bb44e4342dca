package relay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// A session's close is read back from the journal, with when it was
// confirmed, as the relay folds it; a message dropped by hand for that
// session goes to failed/ with a reason naming the session and that
// time, even one the verbosity would leave out, and a close again is no
// failure.
func TestClosedSessionReadAndNamed(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Limit: f.PartLimit()} // lean
	store := FileJournal(h.dirs)
	ctx := context.Background()
	if c, err := SessionClosed(ctx, store, "s"); c != nil || err != nil {
		t.Fatalf("before anything: %v, %v; want not closed", c, err)
	}
	before := time.Now().Truncate(time.Millisecond)
	h.send(bus.Message{ID: "01", Session: "s", Event: bus.EventOpen, Title: "T"})
	h.send(bus.Message{ID: "02", Session: "s", Event: bus.EventClose})
	h.send(bus.Message{ID: "03", Session: "other", Event: bus.EventOpen, Title: "O"})
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	after := time.Now()

	c, err := SessionClosed(ctx, store, "s")
	if err != nil || c == nil {
		t.Fatalf("after the close: %v, %v; want closed", c, err)
	}
	if c.Session != "s" || c.At.Before(before) || c.At.After(after) {
		t.Fatalf("closed %+v, want session s between %v and %v", c, before, after)
	}
	if c, err := SessionClosed(ctx, store, "other"); c != nil || err != nil {
		t.Fatalf("an open session: %v, %v; want not closed", c, err)
	}

	h.send(bus.Message{ID: "04", Session: "s", Text: "too late", Level: bus.LevelAction})
	h.send(bus.Message{ID: "05", Session: "s", Event: bus.EventClose})
	h.send(bus.Message{ID: "06", Session: "s", Text: "chatter, too late"})
	h.waitFor("outbox drained again", h.outboxEmpty)
	if got := files(t, h.dirs.Failed); !slices.Equal(got, []string{"04.json", "06.json"}) {
		t.Fatalf("failed/ holds %v, want the two messages after the close", got)
	}
	if hl := h.relay.Health(); hl.Filtered != 0 {
		t.Errorf("filtered %d, want 0: a message for a closed session fails, whatever its level", hl.Filtered)
	}
	data, err := os.ReadFile(filepath.Join(h.dirs.Failed, "04.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec bus.FailedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	want := "session s was closed at " + c.At.UTC().Format(time.RFC3339)
	if !strings.Contains(rec.Reason, want) {
		t.Errorf("failed reason %q, want it to say %q", rec.Reason, want)
	}
}
