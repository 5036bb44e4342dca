package reconcile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// An unreadable holds.json says nothing of what an operator stopped: the
// name is refused, nothing is started or signalled for it, and the file is
// left exactly as it was, also by a stop.
func TestUnreadableHoldsTouchNothing(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte(`{"version":1,"names":{"../x":{}}}`)
	if err := os.WriteFile(HoldsPath(r.opts.AgentDir), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	out := r.Reconcile(context.Background(), "bot", d, res)
	if out.Status.Phase != PhaseRefused || out.Status.Reason != ReasonHoldsUnreadable {
		t.Errorf("with holds.json unreadable: %s %s (%s), want Refused %s", out.Status.Phase, out.Status.Reason, out.Status.Message, ReasonHoldsUnreadable)
	}
	if out.Owner == nil {
		t.Error("the running owner is not watched while the holds are unreadable")
	}
	stop := r.Stop(context.Background(), "bot", d, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond})
	if stop.OK {
		t.Errorf("stop with holds.json unreadable succeeded: %s", stop.Message)
	}
	if got := p.Received(); len(got) != 0 || p.Exited() {
		t.Errorf("the owner was signalled (%v) or ended", got)
	}
	if data, err := os.ReadFile(HoldsPath(r.opts.AgentDir)); err != nil || !bytes.Equal(data, garbage) {
		t.Errorf("holds.json changed: %q, %v", data, err)
	}
}

// A held name stays stopped, whatever the spec says, and counts as
// converged; letting go of the hold makes it desired again.
func TestHeldNameStaysStopped(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	if _, err := r.setHold("bot", &Hold{}); err != nil {
		t.Fatal(err)
	}
	out := r.Reconcile(context.Background(), "bot", d, res)
	if out.Status.Phase != PhaseHeld || out.Status.Reason != ReasonOperatorStopped || !out.Status.Converged {
		t.Fatalf("held: %s %s converged=%v (%s)", out.Status.Phase, out.Status.Reason, out.Status.Converged, out.Status.Message)
	}
	if changed, err := r.setHold("bot", nil); err != nil || !changed {
		t.Fatalf("letting go of the hold: changed=%v, %v", changed, err)
	}
	out = r.Reconcile(context.Background(), "bot", d, res)
	if out.Status.Phase == PhaseHeld {
		t.Fatalf("still held after the hold was let go: %s", out.Status.Message)
	}
}

// unreachableHolds are a fleet's holds whose cluster does not answer.
type unreachableHolds struct{}

func (unreachableHolds) err() error {
	return &ownership.UnreachableError{Op: "reading the hold of bot", Err: errors.New("context deadline exceeded")}
}
func (h unreachableHolds) Holds() (map[string]Hold, error)     { return nil, h.err() }
func (h unreachableHolds) Hold(string) (*Hold, error)          { return nil, h.err() }
func (h unreachableHolds) SetHold(string, *Hold) (bool, error) { return false, h.err() }
func (h unreachableHolds) Unhold(string) (bool, error)         { return false, h.err() }
func (unreachableHolds) Shared() bool                          { return true }

// Holds that do not answer are as unreadable as a broken holds.json: the
// name is refused with the store's reason and a message saying so, its
// owner is watched but not signalled, and a stop or start changes nothing.
func TestUnreachableHoldsTouchNothing(t *testing.T) {
	w := fakestore.New()
	r, err := New(Options{AgentDir: privateAgentDir(t), Executable: "/bin/false", Log: logr.Discard(), Store: w.Store(), Holds: unreachableHolds{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	d := slackDaemon(100 * time.Millisecond)
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Reconcile(context.Background(), "bot", d, res)
	if out.Status.Phase != PhaseRefused || out.Status.Reason != ownership.ReasonStoreUnreachable || !strings.Contains(out.Status.Message, "ownership store unreachable") {
		t.Errorf("with the holds unreachable: %s %s (%s), want Refused %s", out.Status.Phase, out.Status.Reason, out.Status.Message, ownership.ReasonStoreUnreachable)
	}
	if out.Owner == nil {
		t.Error("the running owner is not watched while the holds are unreachable")
	}
	if stop := r.Stop(context.Background(), "bot", d, res, StopOptions{Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond}); stop.OK {
		t.Errorf("stop with the holds unreachable succeeded: %s", stop.Message)
	}
	if start := r.Start(context.Background(), "bot", d, res); start.OK {
		t.Errorf("start with the holds unreachable succeeded: %s", start.Message)
	}
	if got := p.Received(); len(got) != 0 || p.Exited() {
		t.Errorf("the owner was signalled (%v) or ended", got)
	}
}
