package relay

import (
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// A place is requested only when no other session's place of a message
// still in the outbox is in doubt before it: one in doubt (a kill cut its
// answer off) goes first, the earliest attempt of several first; one of a
// message that left the outbox, of a place since made again, or of the
// same session holds nothing back; nothing goes before the outbox was
// listed once.
func TestPlaceMayGo(t *testing.T) {
	root := func(id, session string, gen int, at int64) bus.Record {
		return bus.Record{Op: bus.OpAttempt, ID: id, Part: bus.PlacePart(bus.PartRoot, gen), Session: session, Text: "t", At: at}
	}
	thread := func(id, session string, at int64) bus.Record {
		return bus.Record{Op: bus.OpAttempt, ID: id, Part: bus.PlacePart(bus.PartThread, 0), Session: session, Text: "t", At: at}
	}
	for _, c := range []struct {
		what     string
		unlisted bool
		journal  []bus.Record // applied in order
		live     []string     // ids in the outbox
		ask      bus.Record
		want     bool
	}{
		{"nothing in doubt", false, nil, []string{"b"}, root("b", "sb", 0, 0), true},
		{"not listed yet", true, nil, []string{"b"}, root("b", "sb", 0, 0), false},
		{"another session's root in doubt", false, []bus.Record{root("a", "sa", 0, 10)}, []string{"a", "b"}, root("b", "sb", 0, 0), false},
		{"another session's topic in doubt", false, []bus.Record{thread("a", "sa", 10)}, []string{"a", "b"}, root("b", "sb", 0, 0), false},
		{"its message left the outbox", false, []bus.Record{root("a", "sa", 0, 10)}, []string{"b"}, root("b", "sb", 0, 0), true},
		{"it was done", false, []bus.Record{root("a", "sa", 0, 10), {Op: bus.OpDone, ID: "a", Part: bus.PartRoot, Session: "sa", Remote: "7", At: 11}}, []string{"a", "b"}, root("b", "sb", 0, 0), true},
		{"the same session's", false, []bus.Record{root("a", "sa", 0, 10)}, []string{"a", "b"}, root("b", "sa", 1, 0), true},
		{"both in doubt: the earlier goes", false, []bus.Record{root("a", "sa", 0, 10), root("b", "sb", 0, 20)}, []string{"a", "b"}, root("a", "sa", 0, 10), true},
		{"both in doubt: the later waits", false, []bus.Record{root("a", "sa", 0, 10), root("b", "sb", 0, 20)}, []string{"a", "b"}, root("b", "sb", 0, 20), false},
	} {
		r := New(Options{})
		r.st = newState()
		for _, rec := range c.journal {
			r.st.apply(rec)
		}
		for _, id := range c.live {
			r.known[id+".json"] = time.Time{}
		}
		r.turn.listed = !c.unlisted
		if got := r.placeMayGoLocked(c.ask); got != c.want {
			t.Errorf("%s: %s of %s may go: %v, want %v", c.what, c.ask.Part, c.ask.Session, got, c.want)
		}
	}
}

// After a kill that left a session's root in doubt, the restarted relay
// looks that root up, and makes it, before any other session's root is
// attempted: two roots in doubt at once are what Telegram's probe cannot
// tell apart.
func TestPlaceInDoubtGoesBeforeANewOne(t *testing.T) {
	f := newFakePoster()
	f.placesAlike = true
	h := newHarness(t, f)
	// The kill: the attempt of 01's root durable, its request never made.
	killedAfter(t, h, bus.Record{Op: bus.OpAttempt, ID: "01", Part: bus.PartRoot, Session: "sa", Text: "a", At: time.Now().UnixMilli()})
	h.send(bus.Message{ID: "01", Session: "sa", Text: "a"})
	h.send(bus.Message{ID: "02", Session: "sb", Text: "b"})
	h.start()
	h.waitFor("both posted", h.outboxEmpty)
	f.mu.Lock()
	var roots []string
	for _, p := range f.posts {
		if strings.HasSuffix(p.key, "/"+bus.PartRoot) {
			roots = append(roots, p.key)
		}
	}
	f.mu.Unlock()
	if want := []string{"01/root", "02/root"}; !slices.Equal(roots, want) {
		t.Fatalf("roots posted in the order %q, want %q: the root in doubt first", roots, want)
	}
}

// Two sessions' places in doubt, the earlier one of a message its session
// takes second (an id that sorts first came later): the sessions are
// ranked by their earliest place in doubt, not by the message asking, so
// nothing waits for a place that would come only after it.
func TestPlaceTurnRanksSessionsNotMessages(t *testing.T) {
	f := newFakePoster()
	f.placesAlike = true
	h := newHarness(t, f)
	now := time.Now().UnixMilli()
	killedAfter(t, h,
		bus.Record{Op: bus.OpAttempt, ID: "12", Part: bus.PartRoot, Session: "sb", Text: "b12", At: now},
		bus.Record{Op: bus.OpAttempt, ID: "02", Part: bus.PartRoot, Session: "sa", Text: "a02", At: now + 10})
	h.send(bus.Message{ID: "02", Session: "sa", Text: "a02"})
	h.send(bus.Message{ID: "11", Session: "sb", Text: "b11"})
	h.send(bus.Message{ID: "12", Session: "sb", Text: "b12"})
	h.start()
	h.waitFor("every message posted", h.outboxEmpty)
}

// killedAfter leaves h's journal as a kill after recs would: each durable,
// nothing after them.
func killedAfter(t *testing.T, h *harness, recs ...bus.Record) {
	t.Helper()
	j, err := bus.OpenJournal(journalPath(h.dirs))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, rec := range recs {
		if err := j.Append(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
}
