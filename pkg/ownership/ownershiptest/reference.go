package ownershiptest

import (
	"context"
	"testing"
)

// Reference proves the owner's process for as long as it is held.

func referenceOfDeadOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	o.Crash(t)
	if ref, err := s.Reference(o.Record()); err == nil {
		_ = ref.Close()
		t.Fatal("Reference of a dead owner succeeded")
	}
}

// A record naming a PID another process has now proves nothing of it.
func referenceOfReusedPID(t *testing.T, w World) {
	s := w.Store()
	b := w.StartBystander(t)
	if ref, err := s.Reference(recordOf(s, b.PID(), b.StaleIncarnation(), forgedOwnerID, desired)); err == nil {
		_ = ref.Close()
		t.Fatalf("Reference of pid %d under an incarnation it does not have succeeded", b.PID())
	}
	b.AssertUntouched(t)
}

// A reference held to a live owner keeps saying it runs after its record
// is gone, and sees its exit.
func referenceOutlivesRecord(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	ref, err := s.Reference(decide(t, s, o))
	if err != nil {
		t.Fatalf("Reference of a live owner: %v", err)
	}
	t.Cleanup(func() { _ = ref.Close() })
	w.RemoveRecord(t, name)
	if exited, err := ref.Exited(); exited || err != nil {
		t.Fatalf("the owner's reference says exited %t (%v) once its record is gone; the owner runs", exited, err)
	}
	o.AssertUntouched(t)
	o.Crash(t)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := ref.Wait(ctx); err != nil {
		t.Fatalf("the reference's Wait after the owner exited: %v", err)
	}
	if exited, err := ref.Exited(); !exited || err != nil {
		t.Errorf("the reference says exited %t (%v) after its Wait returned", exited, err)
	}
}

// ReleaseReaped ends only the exact owner it is told of: told of another
// owner id, or of this owner's id with another pid, a live owner's hold
// and record stay as they were, and it is still decided on.
func releaseReapedSparesOthers(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	rec := o.Record()
	for _, told := range []struct {
		ownerID string
		pid     int
	}{{forgedOwnerID, rec.PID}, {rec.OwnerID, rec.PID + 1}} {
		if err := s.ReleaseReaped(name, told.ownerID, told.pid); err != nil {
			t.Fatalf("ReleaseReaped(%s, pid %d): %v", told.ownerID, told.pid, err)
		}
	}
	decide(t, s, o)
	o.AssertUntouched(t)
}
