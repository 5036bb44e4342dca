package fsstore

import (
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	"testing"
)

func TestSpawnObstacle(t *testing.T) {
	t.Run("no dir, no lock", func(t *testing.T) {
		if err := SpawnObstacle(testPaths(t), SystemProbe()); err != nil {
			t.Fatal(err)
		}
		if err := SpawnObstacle(newPaths(t), SystemProbe()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a stale lock: Acquire reclaims it", func(t *testing.T) {
		p := newPaths(t)
		writeLock(t, p.Lock, deadPID(t), "linux:1")
		if err := SpawnObstacle(p, SystemProbe()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a lock copied from another name's live daemon", func(t *testing.T) {
		p := newPaths(t)
		other := startCanaryAs(t, ownership.ClaimOf(ownership.PathsFor(p.AgentDir(), "d1"), testOwnerID))
		writeLock(t, p.Lock, other.PID(), other.incarnation)
		if err := SpawnObstacle(p, SystemProbe()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("this name's live daemon, its record gone", func(t *testing.T) {
		c := startCanary(t)
		p := newPaths(t)
		writeLock(t, p.Lock, c.PID(), c.incarnation)
		var held *ownership.HeldError
		if err := SpawnObstacle(p, SystemProbe()); !errors.As(err, &held) || held.PID != c.PID() {
			t.Fatalf("SpawnObstacle = %v, want HeldError naming %d", err, c.PID())
		}
	})
	t.Run("a reclaim lock without owner.lock: Acquire never looks at it", func(t *testing.T) {
		c := startCanary(t)
		for _, reclaim := range [][]byte{[]byte("garbage"), (&ownership.OwnerLock{PID: c.PID(), Incarnation: c.incarnation, CreatedAt: 1}).Marshal()} {
			p := newPaths(t)
			writeFile(t, p.Reclaim, reclaim)
			if err := SpawnObstacle(p, SystemProbe()); err != nil {
				t.Fatalf("SpawnObstacle = %v, want nil", err)
			}
			o, err := Acquire(p, request)
			if err != nil {
				t.Fatalf("Acquire beside that reclaim lock: %v", err)
			}
			_ = o.Release(nil)
			mustRemove(t, p.State)
			mustRemove(t, p.Reclaim)
		}
	})
	t.Run("a live reclaim", func(t *testing.T) {
		c := startCanary(t)
		p := newPaths(t)
		writeLock(t, p.Lock, deadPID(t), "linux:1")
		writeLock(t, p.Reclaim, c.PID(), c.incarnation)
		if err := SpawnObstacle(p, SystemProbe()); !errors.Is(err, ownership.ErrReclaimBusy) || ownership.Reason(err) != ownership.ReasonReclaimBusy {
			t.Fatalf("SpawnObstacle = %v, want ReclaimInProgress", err)
		}
	})
	t.Run("a malformed lock", func(t *testing.T) {
		p := newPaths(t)
		writeFile(t, p.Lock, []byte("{"))
		if err := SpawnObstacle(p, SystemProbe()); ownership.Reason(err) != ownership.ReasonMalformedOwnerLock {
			t.Fatalf("SpawnObstacle = %v, want MalformedOwnerLock", err)
		}
	})
}
