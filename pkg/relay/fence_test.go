package relay

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// TestLostOwnershipStopsPosting: once the fence says the name is lost,
// nothing more reaches the service and the relay ends with the loss; the
// message stays in the outbox for the next owner.
func TestLostOwnershipStopsPosting(t *testing.T) {
	errLost := errors.New("owner lost")
	var lost atomic.Bool
	h := newHarness(t, newFakePoster())
	h.fence = func() error {
		if lost.Load() {
			return errLost
		}
		return nil
	}
	r := h.start()
	h.send(bus.Message{ID: "01", Session: "s", Text: "while owned"})
	h.waitFor("the first message posted", h.outboxEmpty)
	h.fake.mu.Lock()
	before := len(h.fake.posts)
	h.fake.mu.Unlock()

	lost.Store(true)
	h.send(bus.Message{ID: "02", Session: "s", Text: "after the loss"})
	select {
	case <-r.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the relay still runs after its fence failed; fake holds %s", h.fake)
	}
	h.relay = nil // ended: Stop would report the loss again
	if err := r.Err(); !errors.Is(err, errLost) {
		t.Errorf("relay ended with %v, want the loss", err)
	}
	h.fake.mu.Lock()
	after := len(h.fake.posts)
	h.fake.mu.Unlock()
	if after != before {
		t.Errorf("%d requests after the loss, want none: %s", after-before, h.fake)
	}
	if h.outboxEmpty() {
		t.Error("the message written after the loss left the outbox")
	}
}
