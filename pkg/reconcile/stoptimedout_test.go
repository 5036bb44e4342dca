package reconcile

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// A stop without --force of an owner that ignores SIGTERM leaves it
// running, held: the passes after it (this reconciler's, and a new one's
// that does not remember the stop) never send SIGKILL, and say
// StopTimedOut. Only stop --force ends it.
func TestHoldWithoutForceNeverKills(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{Stubborn: true})
	if err != nil {
		t.Fatal(err)
	}
	ownerID := w.Record("bot").State.OwnerID
	ctx := context.Background()
	out := r.Stop(ctx, "bot", d, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond})
	if out.OK || !strings.Contains(out.Message, "rerun with --force") {
		t.Fatalf("stop of a stubborn owner without --force: ok=%v %q", out.OK, out.Message)
	}
	if out.After == nil || out.After.Reason != ReasonStopTimedOut {
		t.Errorf("after the stop: %+v, want %s", out.After, ReasonStopTimedOut)
	}
	holds, err := r.holds.Holds()
	if h, ok := holds["bot"]; err != nil || !ok || h.Force {
		t.Fatalf("holds after stop without --force: %+v, %v; want bot held, not forced", holds, err)
	}
	term := []syscall.Signal{syscall.SIGTERM}
	if got := p.Received(); !slices.Equal(got, term) {
		t.Fatalf("the stop sent %v, want %v", got, term)
	}

	check := func(who string, r *Reconciler, want []syscall.Signal) {
		t.Helper()
		o := r.Reconcile(ctx, "bot", d, res)
		if o.Status.Phase != PhaseRunning || o.Status.Reason != ReasonStopTimedOut || o.Status.Converged {
			t.Errorf("%s: %s %s converged=%v (%s), want Running %s, not converged", who, o.Status.Phase, o.Status.Reason, o.Status.Converged, o.Status.Message, ReasonStopTimedOut)
		}
		if o.Owner == nil || o.Owner.OwnerID != ownerID {
			t.Errorf("%s: the owner left running is not watched: %+v", who, o.Owner)
		}
		if got := p.Received(); !slices.Equal(got, want) || p.Exited() {
			t.Errorf("%s: the owner received %v (exited %v), want %v and running", who, got, p.Exited(), want)
		}
	}
	check("the pass after the stop", r, term)
	check("the next pass", r, term)
	// A reconciler that does not remember the stop (a restarted loop)
	// asks once more, as the hold asked: SIGTERM, never SIGKILL.
	r2, err := New(Options{AgentDir: r.opts.AgentDir, Executable: "/bin/false", Log: logr.Discard(), Store: w.Store()})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	check("a new reconciler's pass", r2, []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM})
	check("a new reconciler's next pass", r2, []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM})

	out = r.Stop(ctx, "bot", d, res, StopOptions{Force: true, Graceful: 100 * time.Millisecond, Kill: time.Second})
	if !out.OK || !p.Exited() {
		t.Fatalf("stop --force: ok=%v %q, exited %v", out.OK, out.Message, p.Exited())
	}
	if holds, err := r.holds.Holds(); err != nil || !holds["bot"].Force {
		t.Errorf("holds after stop --force: %+v, %v; want bot held, forced", holds, err)
	}
	if o := r.Reconcile(ctx, "bot", d, res); o.Status.Phase != PhaseHeld || !o.Status.Converged {
		t.Errorf("after stop --force: %s %s (%s), want Held", o.Status.Phase, o.Status.Reason, o.Status.Message)
	}
}

// A stop without --force of a name the spec does not declare as read here
// (known only by its record: the spec is invalid in this shell, or the
// name left it) that outlasts its SIGTERM is reported StopTimedOut in the
// command's answer, as a declared one is: the owner is left running, held.
func TestStopTimedOutOfAnUndeclaredNameIsSaid(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{Stubborn: true})
	if err != nil {
		t.Fatal(err)
	}
	res := &spec.Result{} // bot is not declared here
	out := r.Stop(context.Background(), "bot", nil, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond})
	if out.OK || !strings.Contains(out.Message, "rerun with --force") {
		t.Fatalf("stop of a stubborn owner without --force: ok=%v %q", out.OK, out.Message)
	}
	if got := p.Received(); !slices.Equal(got, []syscall.Signal{syscall.SIGTERM}) || p.Exited() {
		t.Fatalf("the stop sent %v (exited %v), want SIGTERM only, the owner left running", got, p.Exited())
	}
	if out.After == nil || out.After.Reason != ReasonStopTimedOut || out.After.Converged {
		t.Errorf("after the stop: %+v; want reason %s, not converged", out.After, ReasonStopTimedOut)
	}
}
