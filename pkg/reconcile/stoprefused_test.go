package reconcile

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// refusingAfterSending is a store whose stops pass every check, run
// Sending (where the operator's hold is written), and are then refused
// before anything reaches the owner: the control request's write failed,
// or in a fleet another machine took the name in between.
type refusingAfterSending struct{ ownership.Store }

func (s refusingAfterSending) Stop(_ context.Context, _ string, _ *ownership.Desired, decided ownership.State, how ownership.StopOptions) error {
	if err := how.BeforeSending(); err != nil {
		return err
	}
	return fmt.Errorf("writing control request for %s; %w: no space left on device", decided.OwnerID, ownership.ErrNothingSent)
}

// A stop refused after its hold was written lifts that hold: a refused
// stop holds nothing. A hold the operator had set before stays.
func TestStopRefusedAfterSendingHoldsNothing(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, refusingAfterSending{w.Store()})
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	out := r.Stop(t.Context(), "bot", d, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond})
	if out.OK || !strings.Contains(out.Message, "nothing was sent") {
		t.Fatalf("a refused stop: ok=%v %q", out.OK, out.Message)
	}
	for _, w := range out.Warnings {
		if strings.HasPrefix(w, "held stopped") {
			t.Errorf("a refused stop warns that it holds the name: %q", w)
		}
	}
	if r.hasHold("bot") {
		t.Fatal("a stop refused after its hold was written left the hold")
	}

	if _, err := r.setHold("bot", &Hold{}); err != nil {
		t.Fatal(err)
	}
	if out := r.Stop(t.Context(), "bot", d, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond}); out.OK {
		t.Fatalf("a refused stop of a held name: ok %q", out.Message)
	}
	if !r.hasHold("bot") {
		t.Fatal("a refused stop lifted the hold the operator had set before it")
	}
}

// landingHolds are holds where another machine's stop of the name lands
// just after this machine's look and before its write: the first hold
// written through them is preceded by that stop's.
type landingHolds struct {
	fileHolds
	landed *bool
}

func (h landingHolds) SetHold(name string, hold *Hold) (bool, error) {
	if hold != nil && !*h.landed {
		*h.landed = true
		if _, err := h.fileHolds.SetHold(name, &Hold{Since: time.Now().UTC().Truncate(time.Second), Force: hold.Force, Machine: "m2"}); err != nil {
			return false, err
		}
	}
	return h.fileHolds.SetHold(name, hold)
}

// The window of a refused stop's lift: another stop that landed between
// this stop's look (no hold) and its write is found by the write, which
// changes nothing: that hold is the other stop's, and the refusal leaves
// it, with its Machine.
func TestStopRefusedLeavesAHoldThatLandedBeforeItsWrite(t *testing.T) {
	landed := false
	r, out := refusedStop(t,
		func(s ownership.Store) ownership.Store { return refusingAfterSending{s} },
		func(dir string) Holds { return landingHolds{fileHolds{agentDir: dir}, &landed} })
	if out.OK || !landed {
		t.Fatalf("a refused stop: ok=%v %q; the other stop landed: %t", out.OK, out.Message, landed)
	}
	h, err := r.holds.Hold("bot")
	if err != nil || h == nil || h.Machine != "m2" {
		t.Fatalf("after the refusal bot is held as %+v (%v); want the hold m2's stop set in between, kept", h, err)
	}
}

// relyingHolds are a fleet's holds on which another machine's stop relies
// on the name's hold after this machine wrote it: Unhold, as the fleet's
// compare-and-delete does, then lets go of nothing.
type relyingHolds struct {
	fileHolds
	relied *bool
}

func (h relyingHolds) Unhold(name string) (bool, error) {
	if *h.relied {
		return false, nil
	}
	return h.fileHolds.Unhold(name)
}

// relyingStore's stops are refused after another machine's stop relied on
// the hold this one wrote.
type relyingStore struct {
	refusingAfterSending
	relied *bool
}

func (s relyingStore) Stop(ctx context.Context, name string, d *ownership.Desired, decided ownership.State, how ownership.StopOptions) error {
	sending := how.Sending
	how.Sending = func() error {
		err := sending()
		*s.relied = true
		return err
	}
	return s.refusingAfterSending.Stop(ctx, name, d, decided, how)
}

// A refused stop lifts its hold through Unhold, so a hold another stop
// relied on after this one's write stays, and the refusal says so.
func TestRefusedStopKeepsAHoldAnotherStopReliesOn(t *testing.T) {
	relied := false
	r, out := refusedStop(t,
		func(s ownership.Store) ownership.Store { return relyingStore{refusingAfterSending{s}, &relied} },
		func(dir string) Holds { return relyingHolds{fileHolds{agentDir: dir}, &relied} })
	if out.OK || !relied || !strings.Contains(out.Message, "another stop held the name since") {
		t.Fatalf("a refused stop: ok=%v %q; another stop relied on its hold: %t", out.OK, out.Message, relied)
	}
	if !r.hasHold("bot") {
		t.Fatal("a refused stop lifted a hold another stop relied on after its write")
	}
}

// refusedStop stops a live owner of bot through a reconciler whose store
// and holds wrap the fakes as store and holds say, and returns what the
// stop said.
func refusedStop(t *testing.T, store func(ownership.Store) ownership.Store, holds func(dir string) Holds) (*Reconciler, OperateResult) {
	t.Helper()
	w := fakestore.New()
	dir := privateAgentDir(t)
	r, err := New(Options{AgentDir: dir, Executable: "/bin/false", Log: logr.Discard(), Store: store(w.Store()), Holds: holds(dir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	d := slackDaemon(100 * time.Millisecond)
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return r, r.Stop(t.Context(), "bot", d, &spec.Result{Daemons: []*spec.Daemon{d}}, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond})
}
