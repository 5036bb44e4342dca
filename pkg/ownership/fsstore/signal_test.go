package fsstore

import (
	"context"
	"errors"
	"gjc.dev/reconciler/pkg/ownership"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// A live PID whose incarnation differs from the record's is a reused PID:
// the recorded owner is gone. It is never signalled, it counts as stopped,
// and a successor may take over.
func TestReusedPIDIsStoppedAndNeverSignalled(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	decided := stateOf(c.PID(), otherIncarnation)
	writeState(t, p, decided)
	writeLock(t, p.Lock, c.PID(), otherIncarnation)

	cl := classifyNow(ReadState(p), desired, SystemProbe())
	if cl.Class != ownership.ClassStopped || cl.Reason != ownership.ReasonPIDReused || cl.Signalable || cl.AmbiguouslyLive {
		t.Fatalf("Classify = %+v", cl)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		err := SignalOwner(p, &desired, decided, sig, SystemProbe())
		var gone *OwnerGoneError
		if !errors.As(err, &gone) || !gone.Reused || !errors.Is(err, platform.ErrProcessGone) {
			t.Fatalf("SignalOwner(%v) = %v, want a reused-PID OwnerGoneError", sig, err)
		}
		if ownership.Reason(err) != ownership.ReasonPIDReused {
			t.Fatalf("reason %q", ownership.Reason(err))
		}
	}
	c.assertUntouched(t)

	o, err := Acquire(p, ownership.AcquireRequest{Kind: "discord", OwnerID: "successor", Identity: testIdentity, Generation: 7})
	if err != nil {
		t.Fatalf("Acquire over a reused PID: %v", err)
	}
	t.Cleanup(func() { _ = o.Release(nil) }) // drops its name lock, whatever the test did to it
	defer o.Release(nil)
	assertNoLeftovers(t, p)
	c.assertUntouched(t)
}

// The owner changes between the decision and the signal: refused, naming
// the field, and nothing is signalled.
func TestSignalOwnerRefusesChangedOwner(t *testing.T) {
	c := startCanary(t)
	other := startCanary(t)
	decided := stateOf(c.PID(), c.incarnation)
	for _, tc := range []struct {
		field  string
		change func(*ownership.State)
	}{
		{"ownerId", func(s *ownership.State) { s.OwnerID = "4100-successor" }},
		{"pid", func(s *ownership.State) { s.PID, s.Incarnation = other.PID(), other.incarnation }},
		{"identity", func(s *ownership.State) { s.Identity = "df9a87a1207d9253" }},
		{"incarnation", func(s *ownership.State) { s.Incarnation = otherIncarnation }},
		{"generation", func(s *ownership.State) { s.Generation = gen(8) }},
		{"generation", func(s *ownership.State) { s.Generation = spec.NoGeneration }},
		{"kind", func(s *ownership.State) { s.Kind = "slack" }},
		{ownership.StateFile, nil},
	} {
		t.Run(tc.field, func(t *testing.T) {
			p := newPaths(t)
			if tc.change != nil {
				now := decided.Clone()
				tc.change(&now)
				writeState(t, p, now)
			}
			err := SignalOwner(p, &desired, decided, syscall.SIGTERM, SystemProbe())
			var changed *ownership.OwnerChangedError
			if !errors.As(err, &changed) || changed.Field != tc.field || !errors.Is(err, ownership.ErrOwnerChanged) {
				t.Fatalf("SignalOwner = %v, want OwnerChangedError on %s", err, tc.field)
			}
			if ownership.Reason(err) != ownership.ReasonOwnerChanged {
				t.Fatalf("reason %q", ownership.Reason(err))
			}
		})
	}
	c.assertUntouched(t)
	other.assertUntouched(t)
}

// The generation matrix against a live owner: lower, equal and legacy are
// signalled; newer and foreign never are.
func TestSignalOwnerGenerationMatrix(t *testing.T) {
	c := startCanary(t)
	// One daemon dir for all cases: the canary's command line claims it.
	p := newPaths(t)
	for _, kind := range []string{"discord", "slack"} {
		want := ownership.Desired{Kind: kind, Identity: testIdentity, Generation: 7}
		for _, tc := range []struct {
			name   string
			gen    spec.OptGeneration
			class  ownership.Class
			signal bool
		}{
			{"lower", gen(6), ownership.ClassReplaceable, true},
			{"equal", gen(7), ownership.ClassCompatible, true},
			{"missing", spec.NoGeneration, ownership.ClassReplaceable, true},
			{"newer", gen(8), ownership.ClassNewer, false},
		} {
			t.Run(kind+" "+tc.name, func(t *testing.T) {
				s := stateOf(c.PID(), c.incarnation)
				s.Kind, s.Generation = kind, tc.gen
				writeState(t, p, s)
				cl := classifyNow(ReadState(p), want, SystemProbe())
				if cl.Class != tc.class || !cl.Signalable || cl.Health != ownership.HealthHealthy {
					t.Fatalf("Classify = %+v", cl)
				}
				err := SignalOwner(p, &want, s, syscall.SIGUSR1, SystemProbe())
				if tc.signal {
					if err != nil {
						t.Fatal(err)
					}
					if got := c.expect(t, syscall.SIGUSR1); got != "10" {
						t.Fatalf("canary received %q", got)
					}
					return
				}
				if !errors.Is(err, ownership.ErrNewerOwner) || !errors.Is(err, ownership.ErrNotSignalable) || ownership.Reason(err) != ownership.ReasonGenerationAhead {
					t.Fatalf("SignalOwner = %v, want ErrNewerOwner", err)
				}
				c.assertUntouched(t)
			})
		}
	}
	t.Run("foreign", func(t *testing.T) {
		p := newPaths(t)
		s := stateOf(c.PID(), c.incarnation)
		s.Kind = "slack"
		writeState(t, p, s)
		err := SignalOwner(p, &desired, s, syscall.SIGTERM, SystemProbe())
		if !errors.Is(err, ownership.ErrNotSignalable) || ownership.Reason(err) != ownership.ReasonForeignOwner {
			t.Fatalf("SignalOwner = %v", err)
		}
		c.assertUntouched(t)
	})
}

func TestSignalOwnerRefusals(t *testing.T) {
	c := startCanary(t)
	decided := stateOf(c.PID(), c.incarnation)
	t.Run("previous boot", func(t *testing.T) {
		p := newPaths(t)
		s := decided.Clone()
		boot, err := platform.BootTime()
		if err != nil {
			t.Fatal(err)
		}
		s.StartedAt = boot.Add(-time.Hour).UnixMilli()
		writeState(t, p, s)
		err = SignalOwner(p, &desired, s, syscall.SIGTERM, SystemProbe())
		if !errors.Is(err, ownership.ErrNotSignalable) || ownership.Reason(err) != ownership.ReasonPreviousBoot {
			t.Fatalf("SignalOwner = %v", err)
		}
	})
	t.Run("boot time unknown", func(t *testing.T) {
		p := newPaths(t)
		writeState(t, p, decided)
		probe := &fakeProbe{bootErr: errors.New("no /proc/stat")}
		err := SignalOwner(p, &desired, decided, syscall.SIGTERM, probe)
		if !errors.Is(err, ownership.ErrNotSignalable) || ownership.Reason(err) != ownership.ReasonOwnerUnverifiable {
			t.Fatalf("SignalOwner = %v", err)
		}
	})
	t.Run("incarnation unprovable", func(t *testing.T) {
		p := newPaths(t)
		writeState(t, p, decided)
		probe := &fakeProbe{alive: map[int]bool{c.PID(): true}, incErr: map[int]error{c.PID(): errors.New("EACCES")}}
		err := SignalOwner(p, &desired, decided, syscall.SIGTERM, probe)
		if !errors.Is(err, ownership.ErrNotSignalable) || ownership.Reason(err) != ownership.ReasonOwnerUnverifiable {
			t.Fatalf("SignalOwner = %v", err)
		}
	})
	t.Run("probe says reused, pidfd never opened", func(t *testing.T) {
		p := newPaths(t)
		writeState(t, p, decided)
		probe := &fakeProbe{alive: map[int]bool{c.PID(): true}, inc: map[int]string{c.PID(): "linux:2"}}
		if err := SignalOwner(p, &desired, decided, syscall.SIGTERM, probe); !errors.Is(err, platform.ErrProcessGone) {
			t.Fatalf("SignalOwner = %v", err)
		}
	})
	t.Run("stable reference disagrees with the probe", func(t *testing.T) {
		// The probe is fooled into "equal"; OpenProcess re-proves the
		// incarnation against the kernel and refuses.
		p := newPaths(t)
		s := decided.Clone()
		s.Incarnation = otherIncarnation
		writeState(t, p, s)
		probe := &fakeProbe{alive: map[int]bool{c.PID(): true}, inc: map[int]string{c.PID(): otherIncarnation}, claim: ownership.ClaimOf(p, testOwnerID)}
		err := SignalOwner(p, &desired, s, syscall.SIGTERM, probe)
		if !errors.Is(err, platform.ErrProcessGone) || !errors.Is(err, platform.ErrIncarnationMismatch) {
			t.Fatalf("SignalOwner = %v", err)
		}
	})
	c.assertUntouched(t)
}

// The owner exits: the signal is refused with an error matching
// platform.ErrProcessGone, whether the exit is seen before the pidfd is
// opened or only when signalling through it.
func TestSignalOwnerGone(t *testing.T) {
	h := startHelper(t, "canary", daemonproto.Args(ownership.ClaimOf(testPaths(t), testOwnerID), 7)...)
	if h.Recv(t) != "ready" {
		t.Fatal("canary not ready")
	}
	inc := incarnationOf(t, h.PID())
	p := newPaths(t)
	decided := stateOf(h.PID(), inc)
	writeState(t, p, decided)

	proc, err := OpenOwner(p, &desired, decided, SystemProbe())
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	if err := SignalOwner(p, &desired, decided, syscall.SIGKILL, SystemProbe()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := proc.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// A zombie now (not yet reaped): dead to Alive, and to the pidfd.
	err = SignalOwner(p, &desired, decided, syscall.SIGTERM, SystemProbe())
	if !errors.Is(err, platform.ErrProcessGone) || ownership.Reason(err) != ownership.ReasonOwnerExited {
		t.Fatalf("SignalOwner to a zombie = %v", err)
	}
	h.Stop() // reaped: the PID is free
	err = SignalOwner(p, &desired, decided, syscall.SIGTERM, SystemProbe())
	if !errors.Is(err, platform.ErrProcessGone) {
		t.Fatalf("SignalOwner to a reaped process = %v", err)
	}
}

// A release by the owner between the decision and the signal is not a
// change of owner: SIGKILL must still reach a released owner stuck in its
// exit.
func TestSignalOwnerReachesReleasedOwner(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	decided := stateOf(c.PID(), c.incarnation)
	released := decided.Clone()
	released.StoppedAt, released.TransportHealthy = ms(time.Now().UnixMilli()), false
	writeState(t, p, released)
	if err := SignalOwner(p, &desired, decided, syscall.SIGUSR2, SystemProbe()); err != nil {
		t.Fatal(err)
	}
	if got := c.expect(t, syscall.SIGUSR2); got != "12" {
		t.Fatalf("canary received %q", got)
	}
}

func TestOpenOwnerNoDesired(t *testing.T) {
	c := startCanary(t)
	p := newPaths(t)
	s := stateOf(c.PID(), c.incarnation)
	s.Generation = gen(99)
	writeState(t, p, s)
	proc, err := OpenOwner(p, nil, s, SystemProbe())
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	if proc.PID() != c.PID() || proc.Incarnation() != c.incarnation {
		t.Fatalf("opened %d %s", proc.PID(), proc.Incarnation())
	}
	c.assertUntouched(t)
}
