package ownership

import (
	"context"
	"errors"
	"time"
)

// Store is the controller's side of an ownership backend: what the
// reconciler may know and do about the owners of names, and nothing about
// how they are kept. fsstore keeps them in files on one machine; a fleet's
// backend keeps them elsewhere. The reconciler decides; the store proves
// and acts, and refuses whatever it cannot prove.
type Store interface {
	// Observe reads name's record and gathers, in the same look, the
	// facts Classify needs to judge it.
	Observe(name string) Observation
	// Watch returns a channel poked on every change to name's record or
	// control request, and a cancel. The watch is in place when it
	// returns, so a look after subscribing misses no change; a watch that
	// cannot keep up wakes its subscriber rather than drop a change.
	Watch(name string) (changes <-chan struct{}, cancel func(), err error)
	// Prepare makes name's place ready for a new owner (on one machine:
	// its private directory), before anything is written or spawned.
	Prepare(name string) error
	// SpawnBlocked reports why a new owner of name could not start now,
	// something a spawn would only fail on (a live holder of the name
	// without a record, a lock only an operator can fix, a reclaim in
	// progress), as an error with a Reason; nil when nothing is in the way.
	SpawnBlocked(name string) error
	// Stop runs the whole fenced ladder against the owner decided on:
	// a control request, then SIGTERM (or a fleet's equivalent), a wait,
	// SIGKILL when escalation is allowed, and proof that it is gone. It
	// returns nil only once that owner is proved gone (or proved never to
	// have been this name's daemon). Nothing is sent to a process that is
	// not proved to be the owner decided on. want is the desired object,
	// nil for a name no source declares.
	Stop(ctx context.Context, name string, want *Desired, decided State, how StopOptions) error
	// Reference holds the owner s names by a reference that proves its
	// process for as long as it is held, record or no record: how a
	// reconciler knows an owner whose record vanished still runs.
	Reference(s State) (OwnerRef, error)
	// LockPasses serializes reconcile passes over this store across
	// processes, waiting up to ctx's deadline. Call release when done.
	LockPasses(ctx context.Context) (release func(), err error)
	// Machine names this machine in the store's elections of a leader
	// per name (a fleet's); "" for a store without elections (one
	// machine's files), where every name is led here.
	Machine() string
	// Leader names the machine that leads name's election now, "" when
	// none does or the store has no elections: for status, since a
	// leader's word may be stale the moment it is read.
	Leader(name string) (string, error)
	// ReleaseReaped is told that owner ownerID of name, process pid,
	// exited: its parent reaped it, so the exit is known, not inferred. A
	// store whose holds outlive their processes (a fleet's leases) ends
	// that exact owner's hold at once, so it is never taken for a hung
	// owner and stopped; one whose holds die with their processes (one
	// machine's files) has nothing to release.
	ReleaseReaped(name, ownerID string, pid int) error
	// LeaseTTL is how long a revoked owner's name stays held after its
	// owner is gone (a fleet's lease TTL): a wait for another machine's
	// stop lasts that much longer. 0 for holds that die with their
	// processes (one machine's files).
	LeaseTTL() time.Duration
	// Boot identifies this boot, for safety state kept across restarts.
	Boot() BootFacts
	Now() time.Time
	// Close ends the store's watches.
	Close() error
}

// Observation is one look at a name: its record and the facts to judge it by.
type Observation struct {
	Record Record
	Facts  Facts
}

// Classify judges the observation against d.
func (o Observation) Classify(d Desired) Classification { return Classify(o.Record, d, o.Facts) }

// StopOptions say how far a stop may go.
type StopOptions struct {
	// Action is the control request's action: "stop" or "reload".
	Action string
	// Graceful is how long the owner has to exit after the request and
	// SIGTERM; Kill how long after SIGKILL.
	Graceful, Kill time.Duration
	// Escalate allows SIGKILL; without it the stop ends, unproven, after
	// the graceful wait.
	Escalate bool
	// Progress, when set, is told of each step as its wait begins, so a
	// person watching knows what the stop waits for. It must not block.
	Progress func(StopStep)
	// Sending, when set, is called once every check has passed and before
	// the first thing is written or sent to the owner: what must stand
	// before the owner may exit (an operator's hold). A stop refused
	// before that point never calls it, so a refused stop leaves nothing
	// behind; an error from it refuses the stop, nothing sent. A stop that
	// starts over may call it again: it must be idempotent.
	Sending func() error
}

// BeforeSending runs Sending, if set: a store calls it once everything is
// checked and nothing has been sent yet.
func (o StopOptions) BeforeSending() error {
	if o.Sending == nil {
		return nil
	}
	return o.Sending()
}

// StopStep is one step of a stop's ladder: the signal it is about, whether
// it was sent (false: refused, or the owner had exited), and how long the
// stop now waits for the owner to exit.
type StopStep struct {
	Signal string // "SIGTERM" or "SIGKILL"
	Sent   bool
	Wait   time.Duration
}

// Report passes step on to Progress, if set.
func (o StopOptions) Report(step StopStep) {
	if o.Progress != nil {
		o.Progress(step)
	}
}

// OwnerRef is a held reference to a live owner's process.
type OwnerRef interface {
	// Wait returns nil once the process has exited, or ctx's error.
	Wait(ctx context.Context) error
	// Exited reports, without waiting, whether it has exited.
	Exited() (bool, error)
	Close() error
}

// ErrPassesLocked: another reconciler held the pass lock for the whole wait.
var ErrPassesLocked = errors.New("another reconciler holds the lock")

// ErrNotProvenDead: the owner was asked, signalled and killed, and still
// cannot be proven dead. Nothing may be spawned in its place.
var ErrNotProvenDead = errors.New("owner could not be proven dead")

// ErrNothingSent is matched by a stop refused before anything reached
// the owner (no control request, no signal): one a caller may undo what it
// did for it, such as an operator's hold written by Sending.
var ErrNothingSent = errors.New("nothing was sent")

// ErrDidNotExit: the owner was asked and sent SIGTERM, did not exit within
// the graceful timeout, and SIGKILL was not allowed.
var ErrDidNotExit = errors.New("did not exit")
