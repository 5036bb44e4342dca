package ownershiptest

import (
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// watchName subscribes to name's changes on a fresh store, closed with the
// case.
func watchName(t *testing.T, w World) <-chan struct{} {
	t.Helper()
	st := w.Store()
	t.Cleanup(func() { _ = st.Close() })
	changes, cancel, err := st.Watch(name)
	if err != nil {
		t.Fatalf("Watch(%s): %v", name, err)
	}
	t.Cleanup(cancel)
	return changes
}

// waitChange waits for a poke, or fails the case at the deadline. Pokes
// may come in bursts; one is enough.
func waitChange(t *testing.T, changes <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changes:
	case <-time.After(waitLimit):
		t.Fatalf("Watch did not see %s", what)
	}
}

// A watch taken before anything exists for the name (no record, not even
// its place) sees the owner that arrives: a loop subscribes before its
// first look, and must hear of a daemon it did not start.
func watchSeesAnOwnerArrive(t *testing.T, w World) {
	changes := watchName(t, w)
	w.StartOwner(t, name, desired, OwnerOptions{})
	waitChange(t, changes, "an owner publish its record")
}

// A watch sees an owner's release: the loop's wait for a stop ends on it.
func watchSeesARelease(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	changes := watchName(t, w)
	o.Release(t)
	waitChange(t, changes, "the owner release")
	expectVerdict(t, w.Store(), name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonOwnerExiting, ambiguous: true})
}
