package fsstore

import (
	"errors"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// Fence proves the claim before a side effect with a heartbeat's proof and
// writes nothing; the loss it finds sticks and closes Lost, which a
// heartbeat then reports too.
func TestFenceFindsLossAndClosesLost(t *testing.T) {
	p := newPaths(t)
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) })
	if err := o.Fence(); err != nil {
		t.Fatalf("Fence of a fresh owner = %v", err)
	}
	select {
	case <-o.Lost():
		t.Fatal("Lost closed while the owner still owns the name")
	default:
	}
	rewrite(t, o, func(s *ownership.State) { s.OwnerID = "other" })
	before := snap(t, p.Dir)
	if err := o.Fence(); !errors.Is(err, ownership.ErrOwnershipLost) {
		t.Fatalf("Fence after another owner's record = %v, want ErrOwnershipLost", err)
	}
	select {
	case <-o.Lost():
	default:
		t.Fatal("Lost not closed after a fence found the loss")
	}
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); !errors.Is(err, ownership.ErrOwnershipLost) {
		t.Fatalf("Renew after the fence's loss = %v, want ErrOwnershipLost", err)
	}
	assertSame(t, before, p.Dir, "Fence and Renew after a loss")
}
