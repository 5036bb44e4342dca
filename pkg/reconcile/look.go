package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// look is one observation of a name: everything decide judges, and
// nothing else. The attempt gathers it; what its own effects learn
// (a wait, a probe, a stop, a spawn) is added to it before decide is
// asked again.
type look struct {
	name string
	now  time.Time
	rec  ownership.Record
	cls  ownership.Classification

	// declared: a source declares the name; want is how the spec and the
	// operator's hold (nil: none) want it.
	declared bool
	want     stopping
	hold     *Hold
	// holdsErr says why holds.json could not be read: whether an operator
	// holds the name is unknown.
	holdsErr error
	// identity and generation are the desired daemon's (the start gate).
	identity   string
	generation spec.Generation
	graceful   time.Duration

	// Of a name no source declares: whether this reconciler manages it
	// (its inventory), pruned it before, and whether every source is
	// valid.
	inInventory, removed, specValid bool

	// child is the ownerId of our own spawn, still running; "" if none.
	child string
	// waitedRelease: this attempt already waited out a released owner.
	waitedRelease bool
	// termTimedOut is the ownerId of an owner that outlasted a stop
	// without --force: a hold sends it nothing more.
	termTimedOut string
	// expecting is the ownerId believed to run; once its record shows it
	// gone, that exit is counted before anything is started.
	expecting string
	tracked   trackedLook
	crash     crashLook

	// What this attempt's effects found.
	probed   bool
	occupant error // what occupies the name (SpawnBlocked), nil: nothing
	stopped  bool  // a stop proved the owner gone
	stopErr  error // a stop failed
	// replaced is why the owner was stopped to be replaced: next is a
	// spawn, or the successor it handed over to.
	replaced string
	spawn    *spawnTry
	ready    *readiness
	pruned   bool
	pruneErr error

	// cmd is the operator's command the look is taken for; none in a pass.
	cmd commandLook
}

// trackedLook is the owner this reconciler keeps a reference to for the
// name, its record gone or not.
type trackedLook struct {
	owner *ownership.State // nil: none tracked
	// alive: not exited at the look (not waited for).
	alive bool
	// checked: waited for (stepWaitTracked); runs: still running after it.
	checked, runs bool
}

// crashLook is what the crash loop says at the look.
type crashLook struct {
	wait     time.Duration // until the next spawn may happen
	crashes  int
	lastExit *Exit
	logTail  string // the daemon.log tail, read only while waiting
}

// spawnTry is how a spawn that got no new owner to wait for failed.
type spawnTry struct {
	occupant   error // the name is occupied (SpawnBlocked)
	prepareErr error // the daemon dir is unsafe
	err        error // the spawn itself failed
}

// readiness is the outcome of a wait for a new or starting owner.
type readiness struct {
	err error
	// why is the reason a failed wait reports.
	why string
	// died: our spawn exited before it was healthy; child is its ownerId.
	died  bool
	child string
}

// needsTracked reports whether the tracked owner must be waited for
// before the look can say whether it still runs.
func (l look) needsTracked() bool { return l.tracked.owner != nil && !l.tracked.checked }

// trackedRunning reports whether the tracked owner, waited for, still
// runs.
func (l look) trackedRunning() bool { return l.tracked.checked && l.tracked.runs }
