package relay

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// an id reused with different content must go to failed/ with
// nothing posted (DESIGN 5). Before the fix the new content's extra part was posted
// first, then the file was failed at the move to sent/.
func TestReusedIDDifferentContentPostsNothing(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "short"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	th := f.sessionThread("s")
	before := len(f.texts(th))
	long := ""
	for i := 0; i < 30; i++ {
		long += "word" + strconv.Itoa(i) + " "
	}
	// same id, different content, two parts at the fake's limit of 100
	// written as any producer may (DESIGN 5: temp name, fsync, rename), not through bus.Write
	data := []byte(`{"id":"01","session":"s","text":"` + long + `"}`)
	tmp := filepath.Join(h.dirs.Outbox, ".tmp-01")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(h.dirs.Outbox, "01.json")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("reused id handled", h.outboxEmpty)
	if got := f.texts(th); len(got) != before {
		t.Errorf("reused id with different content posted %q (thread had %d, now %d)", got[before:], before, len(got))
	}
	if _, err := os.Stat(filepath.Join(h.dirs.Failed, "01.json")); err != nil {
		t.Errorf("not in failed/: %v", err)
	}
}

// blockOnceLookup answers the first Lookup with a Blocked error.
type blockOnceLookup struct {
	*fakePoster
	n int
}

// Post loses the answer of the message's only text part (the last request).
func (b *blockOnceLookup) Post(ctx context.Context, p Part) (string, error) {
	if p.Key == "01/0" {
		b.fakePoster.mu.Lock()
		b.fakePoster.acceptFail = 1
		b.fakePoster.mu.Unlock()
	}
	return b.fakePoster.Post(ctx, p)
}

func (b *blockOnceLookup) Lookup(ctx context.Context, p Part, after string) (string, bool, error) {
	b.n++
	if b.n == 1 {
		return "", false, &Error{Kind: Blocked, Reason: ReasonRelayBlocked, Code: "403", Err: errors.New("Missing Access")}
	}
	return b.fakePoster.Lookup(ctx, p, after)
}

// a block set while looking up is never cleared when the lookup
// then resolves the part: status says RelayBlocked with nothing blocked.
func TestBlockClearedAfterLookupResolves(t *testing.T) {
	f := newFakePoster()
	bp := &blockOnceLookup{fakePoster: f}
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "first"})
	r := New(Options{Bus: h.dirs, Poster: bp, Render: RenderOptions{Verbose: true, Limit: 100},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.relay = r
	t.Cleanup(h.stop)
	h.waitFor("posted", func() bool { return h.outboxEmpty() && r.Health().Pending == 0 })
	if b := r.Health().Blocked; b != nil {
		t.Errorf("everything posted, yet health says blocked: %+v", *b)
	}
}

// contentPoster looks up as Discord's long-gap lookup does: the first
// message after `after` in the place with the part's exact text.
type contentPoster struct {
	*fakePoster
	afters []string
}

func (c *contentPoster) Lookup(_ context.Context, p Part, after string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.afters = append(c.afters, after)
	a, _ := strconv.Atoi(after)
	for _, m := range c.places[p.Thread] {
		if id, _ := strconv.Atoi(m.id); id > a && m.text == p.Text {
			return m.id, true, nil
		}
	}
	return "", false, nil
}

// compaction drops the done records that gave a pending
// attempt its `after`; the content lookup then starts at the thread's
// beginning, matches an older identical text, and the message is lost.
func TestCompactionKeepsLookupBound(t *testing.T) {
	for _, old := range []int{100, compactAt / 2} {
		t.Run(strconv.Itoa(old), func(t *testing.T) {
			f := newFakePoster()
			cp := &contentPoster{fakePoster: f}
			h := newHarness(t, f)
			j, err := bus.OpenJournal(journalPath(h.dirs))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			at := time.Now().Add(-time.Hour).UnixMilli()
			f.places[""] = []fakeMsg{{id: "1", key: "old0/root", text: "session `s`"}}
			f.threads["1"] = "t1"
			recs := []bus.Record{
				{Op: bus.OpAttempt, ID: "old0", Part: bus.PartRoot, Session: "s", Text: "session `s`", At: at},
				{Op: bus.OpDone, ID: "old0", Part: bus.PartRoot, Session: "s", Remote: "1", At: at},
				{Op: bus.OpAttempt, ID: "old0", Part: bus.PartThread, Session: "s", Text: "s", Remote: "1", At: at},
				{Op: bus.OpDone, ID: "old0", Part: bus.PartThread, Session: "s", Remote: "t1", At: at},
			}
			for i := 1; i <= old; i++ {
				id, remote := "old"+strconv.Itoa(i), strconv.Itoa(1+i)
				f.places["t1"] = append(f.places["t1"], fakeMsg{id: remote, key: id + "/0", text: "ok"})
				recs = append(recs,
					bus.Record{Op: bus.OpAttempt, ID: id, Part: "0", Session: "s", Thread: "t1", Text: "ok", Parts: 1, At: at},
					bus.Record{Op: bus.OpDone, ID: id, Part: "0", Session: "s", Thread: "t1", Remote: remote, At: at})
			}
			// crash: live/0 attempted, never reached the service
			// The attempt carries its bound, as record writes it.
			recs = append(recs, bus.Record{Op: bus.OpAttempt, ID: "live", Part: "0", Session: "s", Thread: "t1", Text: "ok", Parts: 1, At: at, After: strconv.Itoa(1 + old)})
			if err := j.Append(ctx, recs...); err != nil {
				t.Fatal(err)
			}
			_ = j.Close()
			h.send(bus.Message{ID: "live", Session: "s", Text: "ok"})
			r := New(Options{Bus: h.dirs, Poster: cp, Render: RenderOptions{Verbose: true, Limit: 100},
				MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			h.relay = r
			t.Cleanup(h.stop)
			h.waitFor("live handled", h.outboxEmpty)
			got := f.texts("t1")
			if len(got) != old+1 {
				cp.mu.Lock()
				t.Errorf("the live message was never posted (lookups got after=%q, want %q): thread has %d, want %d",
					cp.afters, strconv.Itoa(1+old), len(got), old+1)
				cp.mu.Unlock()
			}
			_ = slices.Equal[[]string]
		})
	}
}

// while the channel check fails, the backlog is not counted:
// status says pending 0 with files waiting in outbox/.
func TestPendingCountedWhileChannelUnavailable(t *testing.T) {
	f := newFakePoster()
	f.channelErr = &Error{Kind: Blocked, Reason: ReasonChannelUnavailable, Err: errors.New("Unknown Channel")}
	h := newHarness(t, f)
	for _, id := range []string{"01", "02", "03"} {
		h.send(bus.Message{ID: id, Session: "s", Text: "t" + id})
	}
	r := h.start()
	h.waitFor("blocked, the backlog counted", func() bool { hl := r.Health(); return hl.Blocked != nil && hl.Pending == 3 })
	if hl := r.Health(); hl.Pending != 3 || hl.OldestPendingAt.IsZero() {
		t.Errorf("channel unavailable with 3 files waiting: pending %d, oldestPendingAt %v", hl.Pending, hl.OldestPendingAt)
	}
}

// a progress update that replaces the previous update (which
// itself replaced the first message) must edit the same message again;
// once an edit left no ids under the update's id, and the third
// message was posted anew.
func TestChainedReplacesEditInPlace(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.start()
	h.send(bus.Message{ID: "01", Session: "s", Text: "progress 10%"})
	h.waitFor("01", h.outboxEmpty)
	h.send(bus.Message{ID: "02", Session: "s", Text: "progress 50%", Replaces: "01"})
	h.waitFor("02", h.outboxEmpty)
	h.send(bus.Message{ID: "03", Session: "s", Text: "progress 100%", Replaces: "02"})
	h.waitFor("03", h.outboxEmpty)
	if got := f.texts(f.sessionThread("s")); len(got) != 1 {
		t.Errorf("thread holds %q: the chained update was posted anew instead of editing in place", got)
	}
}

// after one failed journal write the Journal is closed for good
// (bus.ErrJournalClosed, sticky), yet record() retries Append on the same
// Journal forever: nothing is posted again until the daemon restarts, and
// health shows no block (nor does the relay end, so nothing restarts it).
func TestJournalWriteFailureIsNotAWedge(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "first"})
	r := h.start()
	h.waitFor("first posted", h.outboxEmpty)
	// what a failed write or fsync (ENOSPC, EIO) leaves: a Journal whose
	// every Append answers ErrJournalClosed
	r.mu.Lock()
	_ = r.j.Close()
	r.mu.Unlock()
	h.send(bus.Message{ID: "02", Session: "s", Text: "second"})
	h.waitFor("the relay reopens its journal, reports a block, or ends", func() bool {
		select {
		case <-r.Done():
			return true
		default:
		}
		return h.outboxEmpty() || r.Health().Blocked != nil
	})
}

// a message stuck behind a block and removed by hand (the
// operator's remedy for a message that can never go) is retried forever:
// the worker never re-reads its file, so pending and the block stay.
func TestRemovedWhileBlockedIsDropped(t *testing.T) {
	f := newFakePoster()
	f.blocked = &Error{Kind: Blocked, Reason: ReasonRelayBlocked, Code: "10003", Err: errors.New("Unknown Channel")}
	h := newHarness(t, f)
	h.send(bus.Message{ID: "01", Session: "s", Text: "stuck"})
	r := h.start()
	h.waitFor("blocked", func() bool { return r.Health().Blocked != nil })
	if err := os.Remove(filepath.Join(h.dirs.Outbox, "01.json")); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the removed message forgotten", func() bool {
		hl := r.Health()
		return hl.Pending == 0 && hl.Blocked == nil
	})
}
