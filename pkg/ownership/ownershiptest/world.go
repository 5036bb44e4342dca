package ownershiptest

import (
	"context"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
)

// Harness is what a backend's test supplies to Run.
type Harness struct {
	// New returns an empty world for one case: no owner, no record, no
	// pass held. Whatever it starts is torn down by t's cleanups.
	New func(t *testing.T) World
}

// World is one backend's stores and what they observe, with the ways to
// put it into each state the cases need. A method whose state the backend
// cannot make calls t.Skip with the reason.
//
// Methods that arrange the world act as someone other than the stores
// would (a daemon, an operator, a forger), never through a Store.
type World interface {
	// Store returns a store over this world as one more reconciler would
	// open it: every call a new one, all seeing the same owners.
	Store() ownership.Store

	// StartOwner starts a live owner of name as a daemon does: it takes
	// ownership at want, publishes a healthy heartbeat, and StartOwner
	// returns once its record says so. Its heartbeat stays fresh for the
	// length of a case. On a stop request addressed to it, or SIGTERM (or
	// the backend's equivalent), it releases and exits; with
	// opts.Stubborn it ignores both and only SIGKILL ends it.
	StartOwner(t *testing.T, name string, want ownership.Desired, opts OwnerOptions) Owner

	// StartBystander starts a live process that owns nothing and is no
	// daemon (what `sleep` is): a record may name it, nothing may signal it.
	StartBystander(t *testing.T) Bystander

	// WriteRecord makes s name's record, written by someone other than
	// its owner: a successor, a copy from another name, a forgery. It
	// prepares name's place first if need be.
	WriteRecord(t *testing.T, name string, s ownership.State)

	// CorruptRecord replaces name's record with one no reader accepts.
	CorruptRecord(t *testing.T, name string)

	// CorruptLock leaves, for a name nobody holds, a lock no reader
	// accepts: something only an operator can fix.
	CorruptLock(t *testing.T, name string)

	// RemoveRecord removes everything kept about name where the stores
	// read it, as an operator's rm -rf would, and leaves any process
	// running. What a live owner holds beyond that (a kernel's name lock,
	// a lease) stays held.
	RemoveRecord(t *testing.T, name string)

	// HideLiveness makes p's liveness unknown to every store of this
	// world from now on: neither alive nor dead can be proved (permission
	// denied, a peer out of reach).
	HideLiveness(t *testing.T, p Process)

	// Acquirer is the daemon's side of this world, in this process: the
	// claims whose declared capabilities the cases check.
	Acquirer(t *testing.T) ownership.Acquirer

	// RequestStop writes a stop request addressed to the owner s names,
	// as a controller does before it signals, and sends nothing.
	RequestStop(t *testing.T, name string, s ownership.State)

	// Fingerprint describes everything kept about name (contents, and
	// identity where files have one), to prove an operation changed
	// nothing.
	Fingerprint(t *testing.T, name string) string
}

// OwnerOptions say how a started owner behaves.
type OwnerOptions struct {
	// Stubborn: the owner ignores stop requests and SIGTERM (it still
	// notes them); only SIGKILL ends it.
	Stubborn bool
}

// Process is a live process the world started.
type Process interface {
	PID() int
	// Incarnation is the proof of this very process a record holds.
	Incarnation() string
	// Wait returns nil once the process has exited, or ctx's error.
	Wait(ctx context.Context) error
	// AssertUntouched fails t unless the process is alive and has
	// received no signal and no stop request addressed to it since it
	// started. It sees everything sent before it was called.
	AssertUntouched(t *testing.T)
}

// Owner is a live owner the world started.
type Owner interface {
	Process
	// Record is the record the owner published when it started.
	Record() ownership.State
	// Release has the owner release its ownership, as it does on its way
	// out, and go on running: a released owner that has not exited yet.
	Release(t *testing.T)
	// Crash ends the process at once (SIGKILL, a lost machine) without a
	// release, and returns once it is gone: its record stays.
	Crash(t *testing.T)
}

// Bystander is a live process that is no owner.
type Bystander interface {
	Process
	// StaleIncarnation is a valid incarnation that this PID does not
	// have: what the record of an earlier process with this PID holds.
	StaleIncarnation() string
}
