package reconcile

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/spec"
)

// slackDaemon is a desired slack object at generation 1.
func slackDaemon(graceful time.Duration) *spec.Daemon {
	cfg := spec.Config{Name: "bot", Provider: spec.ProviderSlack, Generation: 1, State: spec.StateRunning,
		ReadyTimeout: time.Second, GracefulTimeout: graceful, KillTimeout: 100 * time.Millisecond,
		Slack: &spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), AppToken: spec.NewSecret("xapp-1"), WorkspaceID: "T1", ChannelID: "C1"}}
	return &spec.Daemon{Config: cfg, Identity: cfg.Identity()}
}

func fakeReconciler(t *testing.T, store ownership.Store) *Reconciler {
	t.Helper()
	r, err := New(Options{AgentDir: privateAgentDir(t), Executable: "/bin/false", Log: logr.Discard(), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// A hung owner at a newer generation is refused, never signalled, and
// still reported as the live owner, so the loop watches its exit and a
// reference to it is held (in held.json too), as before decide() was split
// out.
func TestHungNewerOwnerIsStillTheObservedOwner(t *testing.T) {
	w := fakestore.New()
	r := fakeReconciler(t, w.Store())
	d := slackDaemon(100 * time.Millisecond)
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 2}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Advance(ownership.HeartbeatTTL + 10*time.Second) // its heartbeat stale: hung
	out := r.Reconcile(context.Background(), "bot", d, &spec.Result{Daemons: []*spec.Daemon{d}})
	if out.Status.Reason != ownership.ReasonGenerationAhead {
		t.Fatalf("status %s %s (%s), want the newer owner refused", out.Status.Phase, out.Status.Reason, out.Status.Message)
	}
	if got := p.Received(); len(got) != 0 {
		t.Fatalf("signalled a newer owner: %v", got)
	}
	if out.Owner == nil || out.Owner.PID != p.PID() {
		t.Errorf("Outcome.Owner = %+v, want the hung newer owner: its exit is not watched", out.Owner)
	}
	if out.Status.TrackedOwner == nil {
		t.Error("no reference held to a live owner")
	}
}

// Our own spawn that exits while the attempt waits out a released owner is
// judged again at the next look: the attempt does not wait on a dead child.
func TestChildExitedDuringReleasedWaitIsSeen(t *testing.T) {
	w := fakestore.New()
	waiting := make(chan struct{}, 1)
	r := fakeReconciler(t, waitTellingStore{Store: w.Store(), waiting: waiting})
	d := slackDaemon(10 * time.Second)
	p, err := w.StartOwner("bot", ownership.Desired{Kind: "slack", Identity: d.Identity, Generation: 1}, fakestore.OwnerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Release() // released, still running: OwnerExiting
	c := &child{ownerID: "o-child", pid: 999999, done: make(chan struct{})}
	r.state("bot").child = c
	go func() {
		select {
		case <-waiting: // the attempt waits for the released owner
		case <-time.After(10 * time.Second):
			return
		}
		c.exit = daemonproto.Exit{Code: 3}
		close(c.done) // our child gives up (exit 3) ...
		p.Kill()      // ... and the released owner exits
	}()
	out := r.Reconcile(context.Background(), "bot", d, &spec.Result{Daemons: []*spec.Daemon{d}})
	if out.Status.Reason == ReasonNotReady {
		t.Errorf("decided on a child that had already exited: %s %q", out.Status.Reason, out.Status.Message)
	}
}

// waitTellingStore tells, on waiting, when an owner reference is waited on.
type waitTellingStore struct {
	ownership.Store
	waiting chan struct{}
}

func (s waitTellingStore) Reference(st ownership.State) (ownership.OwnerRef, error) {
	ref, err := s.Store.Reference(st)
	if err != nil {
		return nil, err
	}
	return waitTellingRef{OwnerRef: ref, waiting: s.waiting}, nil
}

type waitTellingRef struct {
	ownership.OwnerRef
	waiting chan struct{}
}

func (r waitTellingRef) Wait(ctx context.Context) error {
	select {
	case r.waiting <- struct{}{}:
	default:
	}
	return r.OwnerRef.Wait(ctx)
}
