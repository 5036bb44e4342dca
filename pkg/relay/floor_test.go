package relay

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// floorPoster keeps a floor as Telegram's poster does (Floors): the
// test raises it while a lost part's answer is in doubt, and sees what
// each lookup was handed and what the relay said it confirmed.
type floorPoster struct {
	*fakePoster
	mu     sync.Mutex
	floor  string
	lost   bool
	saw    []string
	afters []string // after and Part.After of each Lookup
}

func (p *floorPoster) Floors() Floors { return p }

func (p *floorPoster) Floor(string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.floor
}

func (p *floorPoster) Saw(id string) {
	p.mu.Lock()
	p.saw = append(p.saw, id)
	p.mu.Unlock()
}

func (p *floorPoster) setFloor(f string) {
	p.mu.Lock()
	p.floor = f
	p.mu.Unlock()
}

// Post loses the answer of 02's part, and learns a higher floor once it
// was made: a bound known only after the attempt.
func (p *floorPoster) Post(ctx context.Context, part Part) (string, error) {
	if part.Key == "02/0" && !p.lost {
		p.lost = true
		p.fakePoster.mu.Lock()
		p.fakePoster.acceptFail = 1
		p.fakePoster.mu.Unlock()
		defer p.setFloor("9999")
	}
	return p.fakePoster.Post(ctx, part)
}

func (p *floorPoster) Lookup(ctx context.Context, part Part, after string) (string, bool, error) {
	p.mu.Lock()
	p.afters = append(p.afters, after+"/"+part.After)
	p.mu.Unlock()
	return p.fakePoster.Lookup(ctx, part, after)
}

// A poster's floor is journaled with each attempt as its After, before
// its request,
// and a lookup of that attempt is handed the journaled one, never one
// learned since (it could lie above the part); at start the poster is
// told every id the journal confirmed.
func TestAttemptsJournalThePostersFloor(t *testing.T) {
	f := newFakePoster()
	fp := &floorPoster{fakePoster: f, floor: "1000"}
	h := newHarness(t, f)
	run := func() {
		r := New(Options{Bus: h.dirs, Poster: fp, Render: RenderOptions{Verbose: true, Limit: 100},
			MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Settle: 50 * time.Millisecond})
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		h.relay = r
	}
	t.Cleanup(h.stop)
	run()
	h.send(bus.Message{ID: "01", Session: "s", Text: "first"})
	h.waitFor("first posted", h.outboxEmpty)
	fp.setFloor("1002")
	h.send(bus.Message{ID: "02", Session: "s", Text: "second"})
	h.waitFor("second posted", h.outboxEmpty)
	fp.mu.Lock()
	afters := slices.Clone(fp.afters)
	fp.mu.Unlock()
	if !slices.Equal(afters, []string{"1002/1002"}) {
		t.Errorf("lookups were handed %q, want the floor journaled with the attempt, [1002/1002]", afters)
	}
	var journaled []string
	if err := bus.ReplayJournal(journalPath(h.dirs), func(r bus.Record) error {
		if r.Op == bus.OpAttempt {
			journaled = append(journaled, r.Key()+"@"+r.After)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"01/root@1000", "01/thread@1000", "01/0@1000", "02/0@1002"}; !slices.Equal(journaled, want) {
		t.Errorf("attempts journaled %q, want %q", journaled, want)
	}

	h.stop()
	fp.mu.Lock()
	fp.saw = nil
	fp.mu.Unlock()
	run()
	select {
	case <-h.relay.Loaded():
	case <-time.After(10 * time.Second):
		t.Fatal("the relay never read its journal")
	}
	fp.mu.Lock()
	saw := slices.Clone(fp.saw)
	fp.mu.Unlock()
	slices.Sort(saw)
	var want []string
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.places[""] {
		want = append(want, m.id)
	}
	for _, m := range f.places["t"+want[0]] {
		want = append(want, m.id)
	}
	for _, id := range want {
		if !slices.Contains(saw, id) {
			t.Errorf("at start the poster was not told of confirmed %s (told %q)", id, saw)
		}
	}
}
