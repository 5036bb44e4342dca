package ownershiptest

import (
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// A stop refuses, sending nothing and writing nothing, whenever what it
// finds is not proved to be the owner decided on, and never reports such
// an owner gone.

// The record names another owner than the one decided on, on the same
// process (a forger, or a successor's write landing late).
func stopRewrittenRecord(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	changed := decided
	changed.OwnerID = forgedOwnerID
	w.WriteRecord(t, name, changed)
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &desired, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonOwnerChanged, ownership.ErrOwnerChanged)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}

// The owner decided on is gone and a successor took the name: the stop,
// late, must not reach the successor.
func stopAfterHandover(t *testing.T, w World) {
	s := w.Store()
	first := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, first)
	first.Release(t)
	first.Crash(t)
	successor := w.StartOwner(t, name, desired, OwnerOptions{})
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &desired, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonOwnerChanged, ownership.ErrOwnerChanged)
	expectSame(t, w, name, before, "a refused stop")
	successor.AssertUntouched(t)
	decide(t, s, successor)
}

// The record vanished after the decision: its owner may well run on, so
// it is not reported gone, and with no record there is nothing to fence a
// signal against.
func stopVanishedRecord(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	w.RemoveRecord(t, name)
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &desired, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonOwnerChanged, ownership.ErrOwnerChanged)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}

// The owner's liveness cannot be established: it may run, so the stop
// neither signals it nor reports it gone.
func stopUnprovableOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	w.HideLiveness(t, o)
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &desired, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonOwnerUnverifiable, ownership.ErrNotSignalable)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}

// The record became malformed after the decision: nothing about it is
// proved, and nothing is written or sent.
func stopMalformedRecord(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	w.CorruptRecord(t, name)
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &desired, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonMalformedOwnerRecord, ownership.ErrMalformed)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}

// An owner ahead of the desired generation is never signalled (never
// downgraded), whatever was decided.
func stopNewerOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	older := desired
	older.Generation--
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &older, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonGenerationAhead, ownership.ErrNewerOwner)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}

// An owner of another provider is never signalled for this object.
func stopForeignOwner(t *testing.T, w World) {
	s := w.Store()
	o := w.StartOwner(t, name, desired, OwnerOptions{})
	decided := decide(t, s, o)
	foreign := desired
	foreign.Kind = "slack"
	before := w.Fingerprint(t, name)
	err := s.Stop(stopCtx(t), name, &foreign, decided, refusing(t))
	expectRefused(t, err, ownership.ReasonForeignOwner, ownership.ErrNotSignalable)
	expectSame(t, w, name, before, "a refused stop")
	o.AssertUntouched(t)
}
