package ownershiptest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// The ladder ends the owner decided on, and says so only once it is gone.

// The whole ladder on a well-behaved owner: it is gone when Stop returns
// nil, its record says stopped, a reference held to it sees the exit, and
// the name is free for a successor.
func stopEndsDecidedOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	ref, err := s.Reference(decided)
	if err != nil {
		t.Fatalf("Reference of a live owner: %v", err)
	}
	t.Cleanup(func() { _ = ref.Close() })
	if exited, err := ref.Exited(); exited || err != nil {
		t.Fatalf("the reference of a live owner says exited %t (%v)", exited, err)
	}

	how, sendings := ladderStop, 0
	how.Sending = func() error {
		sendings++
		if exited, err := ref.Exited(); exited || err != nil {
			t.Errorf("Sending called after the owner exited (%t, %v): what it writes must stand before the owner may exit", exited, err)
		}
		return nil
	}
	if err := s.Stop(stopCtx(t), name, &desired, decided, how); err != nil {
		t.Fatalf("Stop of the owner decided on: %v", err)
	}
	if sendings != 1 {
		t.Errorf("Sending called %d times by one stop, want once", sendings)
	}
	waitExited(t, o, "once Stop returned nil")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := ref.Wait(ctx); err != nil {
		t.Fatalf("the reference's Wait after the stop: %v", err)
	}
	if exited, err := ref.Exited(); !exited || err != nil {
		t.Errorf("the reference says exited %t (%v) after its Wait returned", exited, err)
	}
	expectStopped(t, s)
	if err := s.SpawnBlocked(name); err != nil {
		t.Errorf("SpawnBlocked after the owner was stopped: %v", err)
	}
}

// expectStopped: name's owner is stopped, released or exited, and nothing
// of it lives on.
func expectStopped(t *testing.T, s ownership.Store) {
	t.Helper()
	_, c := observe(t, s, name, desired)
	if c.Class != ownership.ClassStopped || c.AmbiguouslyLive ||
		(c.Reason != ownership.ReasonOwnerReleased && c.Reason != ownership.ReasonOwnerExited) {
		t.Fatalf("after the stop the owner is %s/%s, ambiguously live %t (%s); want stopped, released or exited", c.Class, c.Reason, c.AmbiguouslyLive, c.Message)
	}
}

// A release written between the decision and the stop does not fence the
// stop off: it is the same process, and one stuck on its way out must
// still be reachable.
func stopReleasedOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	o.Release(t)
	if err := s.Stop(stopCtx(t), name, &desired, decided, ladderStop); err != nil {
		t.Fatalf("Stop of an owner that released since the decision: %v", err)
	}
	waitExited(t, o, "once Stop returned nil")
}

// An owner that died since the decision is gone: nothing to send.
func stopDeadOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	o.Crash(t)
	if err := s.Stop(stopCtx(t), name, &desired, decided, ladderStop); err != nil {
		t.Fatalf("Stop of an owner that died since the decision: %v", err)
	}
}

// Without escalation, an owner that ignores SIGTERM outlives the stop,
// which says so: ErrDidNotExit, never nil, the owner still there.
func stopStubbornWithoutEscalate(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{Stubborn: true})
	decided := decide(t, s, o)
	how := ladderStop
	how.Graceful, how.Escalate = shortWait, false
	err := s.Stop(stopCtx(t), name, &desired, decided, how)
	t.Logf("Stop: %v", err)
	if !errors.Is(err, ownership.ErrDidNotExit) || errors.Is(err, ownership.ErrNotProvenDead) {
		t.Fatalf("Stop without escalation of an owner ignoring SIGTERM = %v, want ErrDidNotExit", err)
	}
	decide(t, s, o) // still there, still the owner
}

// With escalation SIGKILL ends it, and its record, never released, says
// it exited.
func stopStubbornWithEscalate(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{Stubborn: true})
	decided := decide(t, s, o)
	how := ladderStop
	how.Graceful = shortWait
	if err := s.Stop(stopCtx(t), name, &desired, decided, how); err != nil {
		t.Fatalf("Stop with escalation of an owner ignoring SIGTERM: %v", err)
	}
	waitExited(t, o, "once Stop returned nil")
	expectVerdict(t, s, name, verdict{class: ownership.ClassStopped, reason: ownership.ReasonOwnerExited})
}

// A stop cut short by its context reports the context's error, never
// nil: the owner was not proved gone.
func stopCutShort(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{Stubborn: true})
	decided := decide(t, s, o)
	ctx, cancel := context.WithTimeout(context.Background(), shortWait)
	defer cancel()
	how := ladderStop
	how.Graceful, how.Kill = waitLimit, waitLimit
	err := s.Stop(ctx, name, &desired, decided, how)
	t.Logf("Stop: %v", err)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop cut short by its context = %v, want the context's error", err)
	}
	decide(t, s, o)
}

// A stop tells its Progress of each step as its wait begins: SIGTERM sent
// with the graceful wait, then SIGKILL sent with the kill wait, for an
// owner that ignores SIGTERM.
func stopReportsEachStep(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{Stubborn: true})
	decided := decide(t, s, o)
	var steps []ownership.StopStep
	how := ladderStop
	how.Graceful = shortWait
	how.Progress = func(step ownership.StopStep) { steps = append(steps, step) }
	if err := s.Stop(stopCtx(t), name, &desired, decided, how); err != nil {
		t.Fatalf("Stop with escalation of an owner ignoring SIGTERM: %v", err)
	}
	want := []ownership.StopStep{{Signal: "SIGTERM", Sent: true, Wait: shortWait}, {Signal: "SIGKILL", Sent: true, Wait: how.Kill}}
	if !slices.Equal(steps, want) {
		t.Errorf("steps reported %+v, want %+v", steps, want)
	}
}

// Sending refusing the stop refuses it: nothing is written or sent, and
// the error says so.
func stopRefusedBySending(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	before := w.Fingerprint(t, name)
	how := refusalStop
	how.Sending = func() error { return errors.New("the hold could not be written") }
	err := s.Stop(stopCtx(t), name, &desired, decided, how)
	switch {
	case err == nil, errors.Is(err, ownership.ErrDidNotExit), errors.Is(err, ownership.ErrNotProvenDead):
		t.Errorf("Stop = %v though Sending refused it", err)
	case !errors.Is(err, ownership.ErrNothingSent) || !strings.Contains(err.Error(), "the hold could not be written"):
		t.Errorf("Stop = %v: does not say that nothing was sent, and why", err)
	}
	expectSame(t, w, name, before, "a stop Sending refused")
	o.AssertUntouched(t)
}
