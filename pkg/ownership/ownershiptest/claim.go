package ownershiptest

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// The daemon's side: what every Claim declares besides renewing and
// releasing, held in this very process.

// acquire takes name through w's acquirer, ended (released, then closed)
// by t's cleanups.
func acquire(t *testing.T, w World, n int) ownership.Claim {
	t.Helper()
	c, err := w.Acquirer(t).Acquire(name, ownership.AcquireRequest{
		Kind: desired.Kind, OwnerID: fmt.Sprintf("%d-claim-%d", os.Getpid(), n), Identity: desired.Identity, Generation: desired.Generation,
	})
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	t.Cleanup(func() {
		_ = c.Release(nil)
		_ = c.Close()
	})
	return c
}

// A claim reports a stop request addressed to it, and only such a one;
// one whose ControlChanged is not nil pokes it when a request arrives.
func claimReportsControlRequests(t *testing.T, w World) {
	c := acquire(t, w, 1)
	if stop, err := c.StopRequested(); err != nil || stop {
		t.Fatalf("StopRequested with no request = %v, %v", stop, err)
	}
	changed := c.ControlChanged()
	other := c.State()
	other.OwnerID = forgedOwnerID
	w.RequestStop(t, name, other)
	awaitPoke(t, changed, "a request to another owner")
	if stop, err := c.StopRequested(); err != nil || stop {
		t.Fatalf("StopRequested with a request to another owner = %v, %v", stop, err)
	}
	w.RequestStop(t, name, c.State())
	awaitPoke(t, changed, "a request to this owner")
	if stop, err := c.StopRequested(); err != nil || !stop {
		t.Fatalf("StopRequested with a request to this owner = %v, %v", stop, err)
	}
}

// awaitPoke waits for a poke of changed, then drains what else is
// queued; nothing for a nil channel (a claim whose requests the daemon's
// own watch sees).
func awaitPoke(t *testing.T, changed <-chan struct{}, after string) {
	t.Helper()
	if changed == nil {
		return
	}
	select {
	case <-changed:
	case <-time.After(waitLimit):
		t.Fatalf("ControlChanged not poked within %v after %s", waitLimit, after)
	}
	for {
		select {
		case <-changed:
		default:
			return
		}
	}
}

// Close ends a claim as an exit does: lost from then on, and, once it
// was released, the name free for a successor at once.
func claimCloseEndsIt(t *testing.T, w World) {
	c := acquire(t, w, 1)
	if err := c.Release(nil); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	expectLost(t, c, "closed after its release")
	acquire(t, w, 2)
}

// Close without a release (the ownership was lost) ends the claim too.
func claimCloseWithoutRelease(t *testing.T, w World) {
	c := acquire(t, w, 1)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	expectLost(t, c, "closed")
}

func expectLost(t *testing.T, c ownership.Claim, what string) {
	t.Helper()
	select {
	case <-c.Lost():
	default:
		t.Fatalf("Lost not closed for a claim %s", what)
	}
	if err := c.Fence(); !errors.Is(err, ownership.ErrOwnershipLost) {
		t.Fatalf("Fence of a claim %s = %v; want ErrOwnershipLost", what, err)
	}
}

// A store knows who leads a name: the only candidate once it prepared the
// name, nobody in a store without elections.
func leaderOfAPreparedName(t *testing.T, w World) {
	s := w.Store()
	if err := s.Prepare(name); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	who, err := s.Leader(name)
	switch self := s.Machine(); {
	case err != nil:
		t.Fatalf("Leader: %v", err)
	case who != self:
		t.Fatalf("Leader of a name only this store (machine %q) stands for = %q", self, who)
	}
}
