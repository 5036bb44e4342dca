package ownershiptest

import (
	"context"
	"errors"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// lockPassesExcludes: while one reconciler holds the pass lock, another's
// short try fails with ErrPassesLocked, and one waiting gets it once it is
// released, not before.
func lockPassesExcludes(t *testing.T, w World) {
	first, second := w.Store(), w.Store()
	release := lockPasses(t, first, waitLimit)

	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	if r, err := second.LockPasses(ctx); err == nil {
		r()
		t.Fatal("a second reconciler took the pass lock while the first held it: two passes at once")
	} else if !errors.Is(err, ownership.ErrPassesLocked) {
		t.Fatalf("a short try of a held pass lock = %v, want ErrPassesLocked", err)
	}

	type got struct {
		release func()
		err     error
	}
	waiter := make(chan got, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		r, err := second.LockPasses(ctx)
		waiter <- got{r, err}
	}()
	// The waiter must still be waiting: it cannot have the lock yet.
	select {
	case g := <-waiter:
		if g.err == nil {
			g.release()
		}
		t.Fatalf("LockPasses returned (%v) while the first reconciler held the lock", g.err)
	case <-time.After(shortWait):
	}
	release()
	select {
	case g := <-waiter:
		if g.err != nil {
			t.Fatalf("the waiting reconciler, once the lock was released: %v", g.err)
		}
		g.release()
	case <-time.After(waitLimit):
		t.Fatal("the waiting reconciler did not get the released pass lock")
	}
	lockPasses(t, first, waitLimit)()
}

func lockPasses(t *testing.T, s ownership.Store, d time.Duration) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	release, err := s.LockPasses(ctx)
	if err != nil {
		t.Fatalf("LockPasses of a free lock: %v", err)
	}
	return release
}

// bootAndNow: every store of a world agrees on the boot, the clock does
// not run backwards, and an owner started now is of this boot and was
// started after it.
func bootAndNow(t *testing.T, w World) {
	s := w.Store()
	b := s.Boot()
	if again := w.Store().Boot(); again.ID != b.ID || again.TimeKnown != b.TimeKnown || !again.Time.Equal(b.Time) {
		t.Fatalf("two stores of one world disagree on the boot: %+v and %+v", b, again)
	}
	before := s.Now()
	if before.IsZero() {
		t.Fatal("Now is the zero time")
	}
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	after := s.Now()
	if after.Before(before) {
		t.Fatalf("Now ran backwards: %v then %v", before, after)
	}
	if b.TimeKnown && b.Time.After(before) {
		t.Fatalf("the boot at %v is after now, %v", b.Time, before)
	}
	rec := o.Record()
	if !b.Known(&rec) {
		t.Fatalf("the boot (%+v) cannot judge the record of an owner started now (%+v): its incarnation would prove nothing", b, rec)
	}
	if b.FromPreviousBoot(&rec) {
		t.Fatalf("an owner started now is judged from a previous boot: boot %+v, record started %d, bootId %q", b, rec.StartedAt, rec.BootID)
	}
	if started := time.UnixMilli(rec.StartedAt); started.After(after.Add(ownership.MaxClockSkew)) {
		t.Fatalf("an owner started now records a start at %v, after now (%v)", started, after)
	}
}
