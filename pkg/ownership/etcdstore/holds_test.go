package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
)

// A hold set on one machine is every machine's: the first stop's Since and
// Machine stay, a later stop only changes Force, a start anywhere lets it
// go; a hold that cannot be parsed is an error everywhere and is left as
// it is; keys that only end in "hold" are no holds.
func TestHoldsAreTheFleets(t *testing.T) {
	f := newFleet(t)
	cli := f.c.Client(t)
	a, b := f.store(t, cli, "machine-a"), f.store(t, clientOf(t, f.c.Endpoints()[0]), "machine-b")
	first := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	steps := []struct {
		what      string
		by, other holdStore
		set       *ownership.Hold
		changed   bool
		want      *ownership.Hold // as the other machine reads it
	}{
		{"A stops", a, b, &ownership.Hold{Since: first, Machine: "machine-a"}, true,
			&ownership.Hold{Since: first, Machine: "machine-a"}},
		{"B stops again", b, a, &ownership.Hold{Since: first.Add(time.Minute), Machine: "machine-b"}, false,
			&ownership.Hold{Since: first, Machine: "machine-a"}},
		{"B stops --force", b, a, &ownership.Hold{Since: first.Add(time.Minute), Force: true, Machine: "machine-b"}, true,
			&ownership.Hold{Since: first, Force: true, Machine: "machine-a"}},
		{"A starts", a, b, nil, true, nil},
		{"B starts", b, a, nil, false, nil},
	}
	for _, s := range steps {
		changed, err := s.by.SetHold("bot", s.set)
		if err != nil || changed != s.changed {
			t.Fatalf("%s: changed=%v, %v; want changed=%v", s.what, changed, err, s.changed)
		}
		got, err := s.other.Hold("bot")
		if err != nil || (got == nil) != (s.want == nil) || (got != nil && (!got.Since.Equal(s.want.Since) || got.Force != s.want.Force || got.Machine != s.want.Machine)) {
			t.Fatalf("%s: the other machine reads %+v, %v; want %+v", s.what, got, err, s.want)
		}
		all, err := s.other.Holds()
		if err != nil || len(all) != map[bool]int{true: 0, false: 1}[s.want == nil] {
			t.Fatalf("%s: the other machine lists %+v, %v", s.what, all, err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Put(ctx, f.prefix+"/bot/outbox/hold", "x"); err != nil {
		t.Fatal(err)
	}
	if all, err := b.Holds(); err != nil || len(all) != 0 {
		t.Fatalf("an outbox entry named hold is listed as a hold: %+v, %v", all, err)
	}
	garbage := `{"since":"2026-12-06T03:00:00Z","forse":true}`
	if _, err := cli.Put(ctx, f.prefix+"/bot/hold", garbage); err != nil {
		t.Fatal(err)
	}
	if h, err := b.Hold("bot"); err == nil {
		t.Errorf("an unparsable hold reads as %+v", h)
	}
	if _, err := b.Holds(); err == nil {
		t.Error("an unparsable hold is left out of the listing")
	}
	if _, err := a.SetHold("bot", &ownership.Hold{Since: first}); err == nil {
		t.Error("an unparsable hold was overwritten")
	}
	if resp, err := cli.Get(ctx, f.prefix+"/bot/hold"); err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != garbage {
		t.Errorf("the unparsable hold changed: %v, %v", resp, err)
	}
}

// holdStore is reconcile.Holds, which this package may not import.
type holdStore interface {
	Hold(string) (*ownership.Hold, error)
	Holds() (map[string]ownership.Hold, error)
	SetHold(string, *ownership.Hold) (bool, error)
}

// A cluster that does not answer holds nothing and lets nothing go: each
// call is an error the loop refuses the name on, the store's unreachable.
func TestHoldsOfAnUnreachableClusterAreErrors(t *testing.T) {
	f := newFleet(t)
	s := f.store(t, clientOf(t, "127.0.0.1:1"), "machine-a")
	_, herr := s.Hold("bot")
	_, lerr := s.Holds()
	_, serr := s.SetHold("bot", &ownership.Hold{Since: time.Now()})
	_, uerr := s.SetHold("bot", nil)
	for what, err := range map[string]error{"Hold": herr, "Holds": lerr, "SetHold": serr, "SetHold(nil)": uerr} {
		var u *ownership.UnreachableError
		if !errors.As(err, &u) {
			t.Errorf("%s on an unreachable cluster: %v, want an UnreachableError", what, err)
		}
	}
}

// Machines that stop one name at once each read the hold and write theirs
// by compare-and-swap: exactly one of them holds it, and its hold is what
// stays (its Since and Machine); the others find it held and change
// nothing, and none gives up. A start racing them lets go of the hold
// whole or not at all.
func TestConcurrentStopsLoseNoHold(t *testing.T) {
	f := newFleet(t)
	const machines, rounds = 4, 20
	var stores []*etcdstore.Store
	for i := range machines {
		stores = append(stores, f.store(t, clientOf(t, f.c.Endpoints()[0]), fmt.Sprintf("machine-%d", i)))
	}
	since := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	for round := range rounds {
		changed := make([]bool, machines)
		errs := make([]error, machines)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, s := range stores {
			wg.Go(func() {
				<-start
				changed[i], errs[i] = s.SetHold("bot", &ownership.Hold{Since: since.Add(time.Duration(i) * time.Minute), Machine: s.Machine()})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for i := range machines {
			switch {
			case errs[i] != nil:
				t.Fatalf("round %d: machine-%d's stop: %v", round, i, errs[i])
			case changed[i] && winner >= 0:
				t.Fatalf("round %d: machine-%d and machine-%d both say they held bot", round, winner, i)
			case changed[i]:
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no machine says it held bot", round)
		}
		h, err := stores[0].Hold("bot")
		if err != nil || h == nil || h.Machine != stores[winner].Machine() || !h.Since.Equal(since.Add(time.Duration(winner)*time.Minute)) {
			t.Fatalf("round %d: bot is held as %+v (%v); want machine-%d's hold, the one that says it held it", round, h, err, winner)
		}

		// A start on one machine while another stops again with --force.
		var lifted, forced bool
		var lerr, ferr error
		start = make(chan struct{})
		wg.Go(func() { <-start; lifted, lerr = stores[1].SetHold("bot", nil) })
		wg.Go(func() {
			<-start
			forced, ferr = stores[2].SetHold("bot", &ownership.Hold{Since: since, Force: true, Machine: stores[2].Machine()})
		})
		close(start)
		wg.Wait()
		if lerr != nil || ferr != nil || !lifted || !forced {
			t.Fatalf("round %d: start %t, %v; stop --force %t, %v; want both to change the hold", round, lifted, lerr, forced, ferr)
		}
		h, err = stores[3].Hold("bot")
		switch {
		case err != nil:
			t.Fatalf("round %d: %v", round, err)
		case h != nil && (!h.Force || h.Machine != stores[2].Machine()):
			// After the start, the forced stop holds it anew, as its own.
			t.Fatalf("round %d: after a start and a stop --force, bot is held as %+v; want none, or machine-2's forced hold", round, h)
		}
		if _, err := stores[0].SetHold("bot", nil); err != nil {
			t.Fatal(err)
		}
	}
}

// A stop refused after it wrote the hold lifts that hold (Unhold), but
// never one another stop relies on: a stop elsewhere that found the name
// held, with the same --force or another, keeps it held; a second Unhold,
// or one by a machine that wrote nothing, lets go of nothing.
func TestUnholdKeepsAHoldAnotherStopReliesOn(t *testing.T) {
	f := newFleet(t)
	a := f.store(t, f.c.Client(t), "machine-a")
	b := f.store(t, clientOf(t, f.c.Endpoints()[0]), "machine-b")
	since := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		what  string
		other *ownership.Hold // B's stop after A's write; nil: none
		kept  bool
	}{
		{"no other stop", nil, false},
		{"B stops with the same --force", &ownership.Hold{Since: since.Add(time.Minute), Machine: "machine-b"}, true},
		{"B stops --force", &ownership.Hold{Since: since.Add(time.Minute), Force: true, Machine: "machine-b"}, true},
	} {
		if changed, err := a.SetHold("bot", &ownership.Hold{Since: since, Machine: "machine-a"}); err != nil || !changed {
			t.Fatalf("%s: A's stop wrote changed=%v, %v", c.what, changed, err)
		}
		if c.other != nil {
			if _, err := b.SetHold("bot", c.other); err != nil {
				t.Fatalf("%s: B's stop: %v", c.what, err)
			}
		} else if lifted, err := b.Unhold("bot"); err != nil || lifted {
			t.Fatalf("%s: B's Unhold of a hold it never wrote: lifted=%v, %v", c.what, lifted, err)
		}
		lifted, err := a.Unhold("bot")
		if err != nil || lifted == c.kept {
			t.Fatalf("%s: A's Unhold lifted=%v, %v; want lifted=%v", c.what, lifted, err, !c.kept)
		}
		h, err := b.Hold("bot")
		if err != nil || (h != nil) != c.kept {
			t.Fatalf("%s: after A's Unhold the hold is %+v, %v; want held=%v", c.what, h, err, c.kept)
		}
		if again, err := a.Unhold("bot"); err != nil || again {
			t.Fatalf("%s: A's second Unhold lifted=%v, %v; want nothing", c.what, again, err)
		}
		if _, err := a.SetHold("bot", nil); err != nil {
			t.Fatal(err)
		}
	}
}

// A stop whose write merged into a hold another stop made first (its
// look found none, its write found that one and changed its --force) did
// not make the hold, and its Unhold lets go of nothing.
func TestUnholdLeavesAHoldItOnlyMergedInto(t *testing.T) {
	f := newFleet(t)
	a := f.store(t, f.c.Client(t), "machine-a")
	b := f.store(t, clientOf(t, f.c.Endpoints()[0]), "machine-b")
	since := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	if _, err := b.SetHold("bot", &ownership.Hold{Since: since, Machine: "machine-b"}); err != nil {
		t.Fatal(err)
	}
	if changed, err := a.SetHold("bot", &ownership.Hold{Since: since.Add(time.Minute), Force: true, Machine: "machine-a"}); err != nil || !changed {
		t.Fatalf("A's stop --force: changed=%v, %v; want its Force merged in", changed, err)
	}
	if lifted, err := a.Unhold("bot"); err != nil || lifted {
		t.Fatalf("A's Unhold of a hold B made: lifted=%v, %v; want nothing", lifted, err)
	}
	if h, err := b.Hold("bot"); err != nil || h == nil || h.Machine != "machine-b" || !h.Force {
		t.Fatalf("after A's Unhold the hold is %+v, %v; want B's, with A's --force", h, err)
	}
}
