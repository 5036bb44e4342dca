package fakestore_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fakestore"
	"gjc.dev/reconciler/pkg/ownership/ownershiptest"
)

// The suite's safety cases do not lean on signals working: with every
// signal failing (EPERM), or every process undying, a store still sends
// nothing it may not, and reports nothing gone that is not.

func TestSafetyWhenSignalsFail(t *testing.T) {
	ownershiptest.RunSafety(t, harness(func(w *fakestore.World, p *fakestore.Process) {
		if p == nil {
			w.FailSignals(syscall.EPERM)
		}
	}))
}

func TestSafetyWhenNothingDies(t *testing.T) {
	ownershiptest.RunSafety(t, harness(func(w *fakestore.World, p *fakestore.Process) {
		if p != nil {
			w.Undying(p.PID())
		}
	}))
}

var want = ownership.Desired{Kind: "discord", Identity: "7040273bec62d43f", Generation: 7}

var ladder = ownership.StopOptions{Action: "stop", Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond, Escalate: true}

// startOwner starts an owner of "bot" and returns it with the record a
// reconciler decides on.
func startOwner(t *testing.T, w *fakestore.World, stubborn bool) (*fakestore.Process, ownership.State) {
	t.Helper()
	p, err := w.StartOwner("bot", want, fakestore.OwnerOptions{Stubborn: stubborn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	obs := w.Store().Observe("bot")
	if c := obs.Classify(want); !c.Signalable || c.Health != ownership.HealthHealthy {
		t.Fatalf("a fresh owner is %+v", c)
	}
	return p, *obs.Record.State
}

func stop(t *testing.T, w *fakestore.World, decided ownership.State, how ownership.StopOptions) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := w.Store().Stop(ctx, "bot", &want, decided, how)
	t.Logf("Stop: %v", err)
	return err
}

func expectUntouched(t *testing.T, p *fakestore.Process) {
	t.Helper()
	if p.Exited() || len(p.Received()) > 0 || len(p.Requests()) > 0 {
		t.Fatalf("pid %d: exited %t, received %v, requests %+v; want untouched", p.PID(), p.Exited(), p.Received(), p.Requests())
	}
}

// Liveness that cannot be read is never death: whatever the record names,
// the stop refuses, sends and writes nothing, and never returns nil.
func TestUnknownLivenessNeverReportsGone(t *testing.T) {
	for _, tc := range []struct {
		name    string
		arrange func(t *testing.T, w *fakestore.World) (*fakestore.Process, ownership.State)
	}{
		{"owner", func(t *testing.T, w *fakestore.World) (*fakestore.Process, ownership.State) {
			return startOwner(t, w, false)
		}},
		{"stubborn owner", func(t *testing.T, w *fakestore.World) (*fakestore.Process, ownership.State) {
			return startOwner(t, w, true)
		}},
		{"record naming a bystander", func(t *testing.T, w *fakestore.World) (*fakestore.Process, ownership.State) {
			b := w.StartProcess()
			t.Cleanup(b.Kill)
			_, s := startOwner(t, w, false)
			s.PID, s.Incarnation = b.PID(), b.Incarnation()
			w.SetRecord("bot", s)
			return b, s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fakestore.New()
			p, decided := tc.arrange(t, w)
			w.HideLiveness(p.PID())
			if c := w.Store().Observe("bot").Classify(want); c.Class == ownership.ClassStopped || c.Signalable || !c.AmbiguouslyLive {
				t.Fatalf("unknown liveness classified %s, signalable %t, ambiguous %t: %s", c.Class, c.Signalable, c.AmbiguouslyLive, c.Message)
			}
			before := w.Fingerprint("bot")
			err := stop(t, w, decided, ladder)
			if err == nil || ownership.Reason(err) != ownership.ReasonOwnerUnverifiable {
				t.Fatalf("Stop = %v, want a refusal (%s)", err, ownership.ReasonOwnerUnverifiable)
			}
			if after := w.Fingerprint("bot"); after != before {
				t.Errorf("a refused stop wrote: %s -> %s", before, after)
			}
			expectUntouched(t, p)
		})
	}
}

// Liveness lost between the stop's checks and its signal: nothing is
// sent, and the stop, unable to prove the owner gone, says so.
func TestUnknownLivenessBeforeSignalSendsNothing(t *testing.T) {
	w := fakestore.New()
	p, decided := startOwner(t, w, true)
	w.BeforeSignal(func(string, syscall.Signal) { w.HideLiveness(p.PID()) })
	err := stop(t, w, decided, ladder)
	if !errors.Is(err, ownership.ErrNotProvenDead) || !strings.Contains(err.Error(), "SIGTERM not sent") {
		t.Fatalf("Stop = %v, want ErrNotProvenDead with nothing sent", err)
	}
	if got := p.Received(); len(got) > 0 || p.Exited() {
		t.Fatalf("the owner received %v (exited %t)", got, p.Exited())
	}
}

// The record is rewritten to another owner between the stop's checks and
// its SIGTERM: each signal checks again, so none is sent.
func TestRecordChangedBeforeSignalSendsNothing(t *testing.T) {
	w := fakestore.New()
	p, decided := startOwner(t, w, true)
	w.BeforeSignal(func(string, syscall.Signal) {
		changed := decided
		changed.OwnerID = "4100-someone-else"
		w.SetRecord("bot", changed)
	})
	err := stop(t, w, decided, ladder)
	if !errors.Is(err, ownership.ErrNotProvenDead) || !strings.Contains(err.Error(), "SIGTERM not sent: owner changed") {
		t.Fatalf("Stop = %v, want ErrNotProvenDead with SIGTERM refused as the owner changed", err)
	}
	if !strings.Contains(err.Error(), "request stays") || w.Control("bot") == nil {
		t.Errorf("a stop that sent nothing took its request away (the owner's only word): %v", err)
	}
	if got := p.Received(); len(got) > 0 {
		t.Fatalf("the owner received %v after its record named another", got)
	}
}

// The owner decided on exits and a successor takes the name between the
// stop's checks and its SIGTERM: the successor is never signalled, and the
// stop is right to say the owner decided on is gone.
func TestHandoverBeforeSignalSparesSuccessor(t *testing.T) {
	w := fakestore.New()
	first, decided := startOwner(t, w, true)
	var successor *fakestore.Process
	w.BeforeSignal(func(string, syscall.Signal) {
		if successor != nil {
			return
		}
		first.Kill()
		var err error
		if successor, err = w.StartOwner("bot", want, fakestore.OwnerOptions{}); err != nil {
			t.Error(err)
		}
	})
	if err := stop(t, w, decided, ladder); err != nil {
		t.Fatalf("Stop after the owner decided on exited = %v, want nil", err)
	}
	if successor == nil {
		t.Fatal("the stop sent no signal to reach the hook")
	}
	t.Cleanup(successor.Kill)
	expectUntouched(t, successor)
}

// Every signal fails: a stubborn owner outlives the stop, which says what
// was not sent and keeps its request; a well-behaved one obeys the request,
// and only then does the stop report it gone.
func TestSignalFailureNeverReportsGone(t *testing.T) {
	t.Run("stubborn", func(t *testing.T) {
		w := fakestore.New()
		p, decided := startOwner(t, w, true)
		w.FailSignals(syscall.EPERM)
		err := stop(t, w, decided, ladder)
		if !errors.Is(err, ownership.ErrNotProvenDead) || !strings.Contains(err.Error(), "SIGTERM not sent") || !strings.Contains(err.Error(), "request stays") {
			t.Fatalf("Stop with every signal failing = %v, want ErrNotProvenDead, nothing sent, the request kept", err)
		}
		if p.Exited() {
			t.Fatal("the owner exited")
		}
		if err := w.Store().SpawnBlocked("bot"); err == nil {
			t.Fatal("SpawnBlocked = nil beside an owner a stop could not end")
		}
	})
	t.Run("obeys the request", func(t *testing.T) {
		w := fakestore.New()
		p, decided := startOwner(t, w, false)
		w.FailSignals(syscall.EPERM)
		if err := stop(t, w, decided, ladder); err != nil {
			t.Fatalf("Stop of an owner that obeyed the request = %v", err)
		}
		if !p.Exited() || len(p.Received()) > 0 || len(p.Requests()) != 1 {
			t.Fatalf("exited %t, received %v, requests %d: want exited by the one request, no signal", p.Exited(), p.Received(), len(p.Requests()))
		}
	})
}

// A process that will not die, SIGKILL included, is never reported gone,
// with or without escalation, and keeps its name from a second owner.
func TestUndyingOwnerIsNotProvenDead(t *testing.T) {
	w := fakestore.New()
	p, decided := startOwner(t, w, false)
	w.Undying(p.PID())
	how := ladder
	how.Escalate = false
	if err := stop(t, w, decided, how); !errors.Is(err, ownership.ErrDidNotExit) {
		t.Fatalf("Stop without escalation = %v, want ErrDidNotExit", err)
	}
	if err := stop(t, w, decided, ladder); !errors.Is(err, ownership.ErrNotProvenDead) {
		t.Fatalf("Stop with escalation = %v, want ErrNotProvenDead", err)
	}
	if got := p.Received(); len(got) != 3 || got[2] != syscall.SIGKILL {
		t.Errorf("received %v, want SIGTERM, SIGTERM, SIGKILL", got)
	}
	if err := w.Store().SpawnBlocked("bot"); ownership.Reason(err) != ownership.ReasonOwnerHeld {
		t.Fatalf("SpawnBlocked beside an undying owner = %v, want %s", err, ownership.ReasonOwnerHeld)
	}
}
