package etcdstore_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

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

// An owner a stop revoked leaves its revoked lock standing one TTL, for
// it may still run that long; once its parent reaped it, nothing of it
// runs, and ReleaseReaped deletes that lock at once, so a successor does
// not wait the TTL out. Another pid's word leaves it standing.
func TestReleaseReapedEndsARevokedOwnersLock(t *testing.T) {
	f := newFleet(t)
	cli := f.c.Client(t)
	m1 := f.store(t, cli, "m1")
	if err := m1.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	claim := acquire(t, m1, "bot") // never answers the stop
	id, pid := claim.State().OwnerID, os.Getpid()
	decided := m1.Observe("bot").Record.State
	err := m1.Stop(context.Background(), "bot", &want, *decided, ownership.StopOptions{Action: "stop", Graceful: 50 * time.Millisecond, Kill: 50 * time.Millisecond, Escalate: true})
	if !errors.Is(err, ownership.ErrNotProvenDead) {
		t.Fatalf("a stop of an owner that never answers, killing within 50ms: %v; want it revoked and not yet proved dead", err)
	}
	revoked := f.prefix + "/bot/" + ownership.LockFile + ".revoked"
	standing := func() bool {
		resp, err := cli.Get(context.Background(), revoked)
		if err != nil {
			t.Fatal(err)
		}
		return len(resp.Kvs) == 1
	}
	if !standing() {
		t.Fatal("no revoked lock stands after the revocation")
	}
	if err := m1.ReleaseReaped("bot", id, pid+1); err != nil || !standing() {
		t.Fatalf("ReleaseReaped of another pid: %v; the revoked lock standing: %t, want it standing", err, standing())
	}
	asked := time.Now()
	if err := m1.ReleaseReaped("bot", id, pid); err != nil {
		t.Fatal(err)
	}
	if standing() {
		t.Fatal("the reaped owner's revoked lock still stands")
	}
	acquire(t, m1, "bot")
	if took := time.Since(asked); took >= testTTL {
		t.Errorf("the successor acquired the name %s after the release, not at once (TTL %s)", took, testTTL)
	}
}
