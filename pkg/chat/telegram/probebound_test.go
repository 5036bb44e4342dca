package telegram

import (
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// A relay's first root whose answer was lost, in a group with a long
// history the daemon was sent: the probe starts at the chat's top as
// known before the attempt (saved by the transport, journaled by the
// relay as the attempt's floor), so a fresh process finds the root
// rather than probing from the chat's first id into its bound.
func TestProbeStartsAtTheTopKnownBeforeTheAttempt(t *testing.T) {
	f := startFake(t, false)
	dir := t.TempDir()
	last := longHistory(t, f, dir)

	p := newPosterIn(t, f, dir)
	part := relay.Part{Key: "m/root", Text: "a session's first root"}
	after := p.Floor("") // as the relay journals it with the attempt
	if after != strconvI(last) {
		t.Fatalf("Floor = %q, want the last message the transport was sent, %d", after, last)
	}
	f.AcceptThenFail(1, faketelegram.FailCut)
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}

	fresh := newPosterIn(t, f, dir) // after a crash
	id, found, err := fresh.Lookup(ctxFor(t), part, after)
	if err != nil || !found || id != strconvI(last+1) {
		t.Fatalf("Lookup = %q %v %v, want found as %d", id, found, err, last+1)
	}
	if d := f.Snapshot().Duplicates; len(d) != 0 {
		t.Errorf("posted twice: %v", d)
	}
}

// A lost post with deleted messages just below it: the ids missing
// between the last confirmed part and the lost one read like the top of
// the chat, but a message known to lie above them (another session's
// part, confirmed later) proves they are no top: the probe goes on and
// finds the post rather than calling it unposted (a re-post, a double).
func TestProbeGoesThroughAGapBelowTheKnownTop(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	gap := chatter(t, f, topGap+2, "deleted later")
	part := relay.Part{Key: "m/1", Text: "lost above the gap"}
	after := p.Floor(before) // as journaled: the gap went unseen
	f.AcceptThenFail(1, faketelegram.FailCut)
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	other := post(t, p, "n/0", "", "another session's part")
	for _, id := range gap {
		if err := f.DeleteMessage(faketelegram.DefaultChatID, id); err != nil {
			t.Fatal(err)
		}
	}

	fresh := newPoster(t, f) // after a crash: the relay's journal tells it what it confirmed
	fresh.Saw(before)
	fresh.Saw(other)
	part.Confirmed = func(id string) bool { return id == before || id == other }
	id, found, err := fresh.Lookup(ctxFor(t), part, after)
	if want := strconvI(gap[len(gap)-1] + 1); err != nil || !found || id != want {
		t.Fatalf("Lookup = %q %v %v, want found as %s", id, found, err, want)
	}
	if d := f.Snapshot().Duplicates; len(d) != 0 {
		t.Errorf("posted twice: %v", d)
	}
}

// The same gap with nothing known above it is the top: the part was
// never posted and may be.
func TestProbeReadsAGapAboveTheKnownTopAsTheTop(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	before := post(t, p, "m/0", "", "before")
	for _, id := range chatter(t, f, topGap+2, "deleted later") {
		if err := f.DeleteMessage(faketelegram.DefaultChatID, id); err != nil {
			t.Fatal(err)
		}
	}
	f.FailBefore("sendMessage", 1, faketelegram.FailCut)
	part := relay.Part{Key: "m/1", Text: "never stored"}
	if _, err := p.Post(ctxFor(t), part); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("Post = %v, want uncertain", err)
	}
	fresh := newPoster(t, f)
	fresh.Saw(before)
	if _, found, err := fresh.Lookup(ctxFor(t), part, before); err != nil || found {
		t.Fatalf("Lookup = %v %v, want not found", found, err)
	}
}

func TestProbeStart(t *testing.T) {
	for _, tc := range []struct {
		name          string
		after, thread string
		want          int64
	}{
		{"a fresh bot's first root: the chat's first id", "", "", 0},
		{"a root above the last root, or the top known before it", "1000", "", 1000},
		{"a thread's first part above its root", "", "5", 5},
		{"a part above the last in its thread", "9", "5", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := probeStart(tc.after, tc.thread)
			if err != nil || got != tc.want {
				t.Errorf("probeStart = %d %v, want %d", got, err, tc.want)
			}
		})
	}
	if _, err := probeStart("x", ""); relay.KindOf(err) != relay.Refused {
		t.Errorf("an after that is no message id: %v", err)
	}
}

// An attempt journals the higher of its place's last part and the
// chat's top known at the time (relay.Floors).
func TestFloor(t *testing.T) {
	for _, tc := range []struct {
		name      string
		top       int64
		last, out string
	}{
		{"nothing known", 0, "", ""},
		{"the place's last part only", 0, "7", "7"},
		{"the chat's top only", 40, "", "40"},
		{"the top above the last part", 40, "7", "40"},
		{"the last part above the top", 40, "90", "90"},
		{"no message id is left to the lookup", 40, "x", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poster{top: &chatTop{}}
			p.top.saw(tc.top)
			if got := p.Floor(tc.last); got != tc.out {
				t.Errorf("Floor(%q) = %q, want %q", tc.last, got, tc.out)
			}
		})
	}
}

// chatter has alice send n messages of text to the chat, and returns
// their ids.
func chatter(t *testing.T, f *faketelegram.Server, n int, text string) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		m, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = m.ID
	}
	return ids
}

// longHistory sends a transport with its state in dir 1,000 messages,
// waits until the last landed and stops it, so dir holds the chat's top
// and the offset; it returns the last message's id.
func longHistory(t *testing.T, f *faketelegram.Server, dir string) int64 {
	t.Helper()
	in := newInbox()
	_, stop := run(t, f, in, dir)
	ids := chatter(t, f, 1000, "chatter")
	last := ids[len(ids)-1]
	waitLanded(t, in, last)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	return last
}
