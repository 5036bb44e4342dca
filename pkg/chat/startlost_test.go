package chat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// losableClaim is a claim that the test declares lost, as a fleet's is
// when its lease can no longer be proven: Lost closes on its own, with
// no write of anyone's to see.
type losableClaim struct {
	ownership.Claim
	lost chan struct{}
}

func (c *losableClaim) Lost() <-chan struct{} { return c.lost }

func (c *losableClaim) Fence() error {
	select {
	case <-c.lost:
		return &ownership.OwnershipLostError{What: ownership.LockFile, Err: errors.New("lease expired")}
	default:
		return c.Claim.Fence()
	}
}

// stuckRelay starts as a fleet's relay does through a cut: it waits on
// the cluster until ctx is done.
type stuckRelay struct {
	starting chan struct{}
	done     chan struct{}
}

func (r *stuckRelay) Name() string { return "relay" }
func (r *stuckRelay) Start(ctx context.Context) error {
	close(r.starting)
	<-ctx.Done()
	return ctx.Err()
}
func (r *stuckRelay) Done() <-chan struct{}             { return r.done }
func (r *stuckRelay) Err() error                        { return nil }
func (r *stuckRelay) Stop(context.Context) error        { return nil }
func (r *stuckRelay) RelayState() *ownership.RelayState { return nil }
func (r *stuckRelay) RelayChanged() <-chan struct{}     { return nil }
func (r *stuckRelay) Settled() bool                     { return true }

// A claim lost while a component is still starting ends the start: the
// transport, connected first, closes at once, and the daemon exits as
// one that lost its name. A start waiting out its own timeout would keep
// the transport connected past the moment a successor may take the name.
func TestRunDaemonLosingItsNameWhileStartingClosesTheTransport(t *testing.T) {
	dir := t.TempDir()
	cfg := daemonConfig()
	lost := make(chan struct{})
	owners := acquirerFunc(func(name string, req ownership.AcquireRequest) (ownership.Claim, error) {
		c, _, err := releasedAtCleanup(t, fsstore.New(dir, fsstore.Options{})).Acquire(name, req)
		if err != nil {
			return nil, err
		}
		return &losableClaim{Claim: c, lost: lost}, nil
	})
	tr := &fakeTransport{running: make(chan struct{})}
	closed := make(chan struct{})
	tr.atClose = func() { close(closed) }
	rel := &stuckRelay{starting: make(chan struct{}), done: make(chan struct{})}
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := RunDaemon(context.Background(), DaemonOptions{AgentDir: dir, Owners: LocalOwners(owners), OwnerID: "owner-1", Config: cfg,
			Log: testr.New(t), Heartbeat: time.Hour, NewRelay: func(ownership.Claim, SharedBus) (RelayComponent, error) { return rel, nil }}, tr)
		done <- result{code, err}
	}()
	for what, ch := range map[string]chan struct{}{"the transport to run": tr.running, "the relay to start": rel.starting} {
		select {
		case <-ch:
		case <-time.After(testTimeout):
			t.Fatalf("waiting for %s", what)
		}
	}
	close(lost)
	select {
	case <-closed:
	case <-time.After(testTimeout):
		t.Fatal("the transport stayed connected after the claim was lost during the start")
	}
	select {
	case r := <-done:
		if r.code != daemonproto.ExitLost || !errors.Is(r.err, ownership.ErrOwnershipLost) {
			t.Errorf("RunDaemon = %d, %v; want %d and ErrOwnershipLost", r.code, r.err, daemonproto.ExitLost)
		}
	case <-time.After(testTimeout):
		t.Fatal("the daemon ran on after its claim was lost")
	}
}
