package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func TestRenew(t *testing.T) {
	p := newPaths(t)
	clock := time.UnixMilli(1795990000000)
	e := defaultEnv()
	e.now = func() time.Time { return clock }
	o, err := acquire(p, request, SystemProbe(), e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	clock = clock.Add(5 * time.Second)
	if err := o.Renew(ownership.Heartbeat{TransportError: "dial tcp: connection refused"}); err != nil {
		t.Fatal(err)
	}
	st := ReadState(p).State
	if st.HeartbeatAt != clock.UnixMilli() || st.TransportHealthy || st.TransportError != "dial tcp: connection refused" ||
		st.StartedAt != clock.UnixMilli()-5000 {
		t.Fatalf("after Renew: %+v", st)
	}
	clock = clock.Add(5 * time.Second)
	if err := o.Renew(ownership.Heartbeat{TransportHealthy: true, TransportError: "ignored while healthy"}); err != nil {
		t.Fatal(err)
	}
	if st := ReadState(p).State; !st.TransportHealthy || st.TransportError != "" || st.HeartbeatAt != clock.UnixMilli() {
		t.Fatalf("after healthy Renew: %+v", st)
	}
	// A long remote error is capped, so the record stays small.
	if err := o.Renew(ownership.Heartbeat{TransportError: strings.Repeat("é", 5000)}); err != nil {
		t.Fatal(err)
	}
	if st := ReadState(p).State; len(st.TransportError) > ownership.MaxDetail || st.TransportError == "" {
		t.Fatalf("transportError %d bytes", len(st.TransportError))
	}
	if got := o.State(); !statesEqual(got, *ReadState(p).State) {
		t.Fatalf("State() = %+v", got)
	}
}

// Renew proves the ownership first; any difference is a loss that sticks,
// and nothing is written.
func TestRenewLosesOwnership(t *testing.T) {
	for _, tc := range []struct {
		name   string
		what   string
		field  string
		mutate func(t *testing.T, o *Owner)
	}{
		{"ownerId rewritten", ownership.StateFile, "ownerId", func(t *testing.T, o *Owner) { rewrite(t, o, func(s *ownership.State) { s.OwnerID = "other" }) }},
		{"pid rewritten", ownership.StateFile, "pid", func(t *testing.T, o *Owner) { rewrite(t, o, func(s *ownership.State) { s.PID = 1 }) }},
		{"incarnation rewritten", ownership.StateFile, "incarnation", func(t *testing.T, o *Owner) {
			rewrite(t, o, func(s *ownership.State) { s.Incarnation = otherIncarnation })
		}},
		{"released by someone", ownership.StateFile, "stoppedAt", func(t *testing.T, o *Owner) { rewrite(t, o, func(s *ownership.State) { s.StoppedAt = ms(1) }) }},
		{"generation rewritten", ownership.StateFile, "generation", func(t *testing.T, o *Owner) { rewrite(t, o, func(s *ownership.State) { s.Generation = gen(8) }) }},
		{"record gone", ownership.StateFile, "", func(t *testing.T, o *Owner) { mustRemove(t, o.paths.State) }},
		{"record malformed", ownership.StateFile, "", func(t *testing.T, o *Owner) { writeFile(t, o.paths.State, []byte("{}")) }},
		{"lock gone", ownership.LockFile, "", func(t *testing.T, o *Owner) { mustRemove(t, o.paths.Lock) }},
		{"lock replaced", ownership.LockFile, "", func(t *testing.T, o *Owner) {
			// Same owner, another inode: written beside the lock and renamed
			// over it, because a file created after a removal can get the
			// freed inode number back.
			tmp := o.paths.Lock + ".replacement"
			writeLock(t, tmp, o.state.PID, o.state.Incarnation)
			if err := os.Rename(tmp, o.paths.Lock); err != nil {
				t.Fatal(err)
			}
		}},
		{"incarnation unprovable", "incarnation", "", func(t *testing.T, o *Owner) {
			o.env.incarnation = func(int) (string, error) { return "", platform.ErrProcessGone }
		}},
		{"incarnation differs", "incarnation", "", func(t *testing.T, o *Owner) {
			o.env.incarnation = func(int) (string, error) { return otherIncarnation, nil }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPaths(t)
			o, err := Acquire(p, request)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
			tc.mutate(t, o)
			before := snap(t, p.Dir)
			for range 2 { // the loss sticks
				err := o.Renew(ownership.Heartbeat{TransportHealthy: true})
				var lost *ownership.OwnershipLostError
				if !errors.As(err, &lost) || lost.What != tc.what || lost.Field != tc.field || ownership.Reason(err) != ownership.ReasonOwnershipLost {
					t.Fatalf("Renew = %v, want loss of %s %s", err, tc.what, tc.field)
				}
			}
			assertSame(t, before, p.Dir, "Renew after a loss")
			if err := o.Release(nil); !errors.Is(err, ownership.ErrOwnershipLost) {
				t.Fatalf("Release after a loss = %v", err)
			}
			assertSame(t, before, p.Dir, "Release after a loss")
		})
	}
}

func rewrite(t *testing.T, o *Owner, f func(*ownership.State)) {
	t.Helper()
	s := o.state.Clone()
	f(&s)
	writeState(t, o.paths, s)
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// Release by the exact live owner only: the reference's nine negative
// cases leave state.json and owner.lock untouched.
func TestReleaseOnlyByExactLiveOwner(t *testing.T) {
	c := startCanary(t)
	negative := []struct {
		name   string
		mutate func(t *testing.T, o *Owner)
	}{
		{"record malformed", func(t *testing.T, o *Owner) { writeFile(t, o.paths.State, []byte(`{"version":1}`)) }},
		{"record gone", func(t *testing.T, o *Owner) { mustRemove(t, o.paths.State) }},
		{"ownerId differs", func(t *testing.T, o *Owner) { rewrite(t, o, func(s *ownership.State) { s.OwnerID = "successor" }) }},
		{"pid differs", func(t *testing.T, o *Owner) {
			rewrite(t, o, func(s *ownership.State) { s.PID, s.Incarnation = c.PID(), c.incarnation })
		}},
		{"incarnation differs", func(t *testing.T, o *Owner) {
			rewrite(t, o, func(s *ownership.State) { s.Incarnation = otherIncarnation })
		}},
		{"owner's incarnation has no authority", func(t *testing.T, o *Owner) {
			o.state.Incarnation = ownership.LegacyIncarnation
			o.env.incarnation = func(int) (string, error) { return ownership.LegacyIncarnation, nil }
		}},
		{"owner's pid is dead", func(t *testing.T, o *Owner) {
			o.state.PID = deadPID(t)
			o.env.incarnation = platform.Incarnation
		}},
		{"owner's pid reused", func(t *testing.T, o *Owner) {
			// The owner names the canary's PID with another incarnation.
			o.state.PID = c.PID()
			o.env.incarnation = platform.Incarnation
		}},
		{"lock is a successor's", func(t *testing.T, o *Owner) {
			mustRemove(t, o.paths.Lock)
			writeLock(t, o.paths.Lock, c.PID(), c.incarnation)
		}},
	}
	for _, tc := range negative {
		t.Run(tc.name, func(t *testing.T) {
			p := newPaths(t)
			o, err := Acquire(p, request)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
			tc.mutate(t, o)
			before := snap(t, p.Dir)
			if err := o.Release(&ownership.Terminated{Reason: "X", Message: "y"}); !errors.Is(err, ownership.ErrOwnershipLost) {
				t.Fatalf("Release = %v", err)
			}
			assertSame(t, before, p.Dir, "a refused Release")
		})
	}
	c.assertUntouched(t)

	t.Run("exact owner", func(t *testing.T) {
		p := newPaths(t)
		clock := time.UnixMilli(1795990000000)
		e := defaultEnv()
		e.now = func() time.Time { return clock }
		o, err := acquire(p, request, SystemProbe(), e)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
		if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Second)
		if err := o.Release(&ownership.Terminated{Reason: "InvalidCredentials", Message: "close 4004"}); err != nil {
			t.Fatal(err)
		}
		st := ReadState(p).State
		if st.StoppedAt == nil || *st.StoppedAt != clock.UnixMilli() || st.TransportHealthy ||
			st.Terminated == nil || st.Terminated.Reason != "InvalidCredentials" || st.OwnerID != testOwnerID {
			t.Fatalf("released record %+v", st)
		}
		if _, err := os.Lstat(p.Lock); !os.IsNotExist(err) {
			t.Fatalf("lock not removed: %v", err)
		}
		assertNoLeftovers(t, p)
		if err := o.Release(nil); err != nil {
			t.Fatalf("second Release = %v", err)
		}
		if err := o.Renew(ownership.Heartbeat{TransportHealthy: true}); !errors.Is(err, ownership.ErrOwnershipLost) {
			t.Fatalf("Renew after Release = %v", err)
		}
		if c := classifyNow(ReadState(p), desired, selfAsDaemon(p)); c.Class != ownership.ClassStopped || c.Reason != ownership.ReasonOwnerExiting || !c.AmbiguouslyLive {
			t.Fatalf("Classify after release, before exit = %+v", c)
		}
	})
}

// The heartbeat and the exit path run concurrently in a daemon.
func TestRenewReleaseConcurrently(t *testing.T) {
	p := newPaths(t)
	o, err := Acquire(p, request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 20 {
				err := o.Renew(ownership.Heartbeat{TransportHealthy: j%2 == 0, TransportError: fmt.Sprint("e", i)})
				if err != nil && !errors.Is(err, ownership.ErrOwnershipLost) {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		if err := o.Release(nil); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	if st := ReadState(p).State; st.StoppedAt == nil {
		t.Fatalf("not released: %+v", st)
	}
}
