package ownershiptest

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// SpawnBlocked says why a new owner could not start: never nil while
// something live holds the name, record or no record.

func spawnFreeName(t *testing.T, w World) {
	s := w.Store()
	if err := s.SpawnBlocked(name); err != nil {
		t.Fatalf("SpawnBlocked of a name nobody holds: %v", err)
	}
	for i := range 2 {
		if err := s.Prepare(name); err != nil {
			t.Fatalf("Prepare #%d: %v", i+1, err)
		}
	}
	if err := s.SpawnBlocked(name); err != nil {
		t.Fatalf("SpawnBlocked of a prepared name nobody holds: %v", err)
	}
	expectVerdict(t, s, name, verdict{class: ownership.ClassAbsent, reason: ownership.ReasonNoOwner})
}

func spawnBlockedByLiveOwner(t *testing.T, w World) {
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	expectBlocked(t, w.Store().SpawnBlocked(name), ownership.ReasonOwnerHeld, ownership.ErrHeld)
	o.AssertUntouched(t)
}

// A live owner whose record vanished still holds its name until it exits.
func spawnBlockedByHolderWithoutRecord(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	w.RemoveRecord(t, name)
	expectBlocked(t, s.SpawnBlocked(name), ownership.ReasonOwnerHeld, ownership.ErrHeld)
	o.AssertUntouched(t)
	o.Crash(t)
	if err := s.SpawnBlocked(name); err != nil {
		t.Fatalf("SpawnBlocked once the holder without a record exited: %v", err)
	}
}

// A lock that cannot be trusted needs an operator: a spawn would only
// fail on it.
func spawnBlockedByMalformedLock(t *testing.T, w World) {
	w.CorruptLock(t, name)
	expectBlocked(t, w.Store().SpawnBlocked(name), ownership.ReasonMalformedOwnerLock, ownership.ErrMalformed)
}
