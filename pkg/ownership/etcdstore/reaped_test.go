package etcdstore_test

import (
	"os"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// A daemon its parent reaped holds nothing more: its lock goes at once,
// its record then shows it exited, and a successor acquires the name
// without waiting for the lease. Only that exact owner, on this machine,
// is released: another pid, or the word of another machine, changes
// nothing.
func TestReleaseReapedEndsOnlyThatOwnersHold(t *testing.T) {
	f := newFleet(t)
	m1, m2 := f.store(t, f.c.Client(t), "m1"), f.store(t, f.c.Client(t), "m1-other")
	claim := acquire(t, m1, "bot")
	id, pid := claim.State().OwnerID, os.Getpid()
	for _, tc := range []struct {
		what string
		err  error
	}{
		{"another pid", m1.ReleaseReaped("bot", id, pid+1)},
		{"another owner id", m1.ReleaseReaped("bot", id+"x", pid)},
		{"another machine", m2.ReleaseReaped("bot", id, pid)},
	} {
		if tc.err != nil {
			t.Fatalf("ReleaseReaped of %s: %v", tc.what, tc.err)
		}
		if c := m1.Observe("bot").Classify(want); c.Class != ownership.ClassCompatible {
			t.Fatalf("after ReleaseReaped of %s the owner is %s/%s (%s), want compatible: untouched", tc.what, c.Class, c.Reason, c.Message)
		}
	}
	if err := m1.ReleaseReaped("bot", id, pid); err != nil {
		t.Fatal(err)
	}
	if c := m1.Observe("bot").Classify(want); c.Class != ownership.ClassStopped || c.Reason != ownership.ReasonOwnerExited {
		t.Errorf("after ReleaseReaped the owner is %s/%s (%s), want stopped, %s", c.Class, c.Reason, c.Message, ownership.ReasonOwnerExited)
	}
	if err := claim.Fence(); err == nil {
		t.Error("the released owner's fence still holds")
	}
	successor := acquire(t, m1, "bot") // at once, not a lease later
	if err := m1.ReleaseReaped("bot", id, pid); err != nil {
		t.Errorf("ReleaseReaped again, once a successor holds the name: %v", err)
	}
	if err := successor.Fence(); err != nil {
		t.Errorf("the successor lost the name to its predecessor's release: %v", err)
	}
}
