package reconcile

import "time"

// Hooks tell the caller what the reconciler and its loop do, as they do it:
// the loop's metrics are fed from here and from LoopOptions.OnStatus, so
// this package knows nothing of how they are exported. Every hook is
// optional and is called on the goroutine doing the work, several at once
// for different names: it must be quick and safe for concurrent use.
type Hooks struct {
	// Passed follows each full pass (every name at once, as the loop's
	// first pass and --once do), after status.json is written.
	Passed func(p PassResult, took time.Duration)
	// Reconciled follows each reconcile of one name, inside a full pass
	// or on its own, with its outcome.
	Reconciled func(name string, out Outcome, took time.Duration)
	// Restarted follows each restart that status.json's restarts count,
	// with why: one of the Restart* reasons.
	Restarted func(name, reason string)
	// Woke follows each wake of the loop, with what woke it: one of the
	// Trigger* values that status.json counts.
	Woke func(trigger string)
}

// Why a daemon was restarted: the reasons Hooks.Restarted is given. Each
// restart counted in status.json's restarts has exactly one.
const (
	// RestartCrashed: the owner that was running exited without being
	// asked, without releasing, or with a recorded failure (a kill -9, a
	// panic, a lost transport it gave up on).
	RestartCrashed = "Crashed"
	// RestartReleased: the owner that was running released cleanly though
	// this reconciler did not ask it to (someone sent it SIGTERM).
	RestartReleased = "Released"
	// RestartExitedBeforeReady: a daemon this reconciler spawned exited
	// before it became healthy.
	RestartExitedBeforeReady = "ExitedBeforeReady"
)

// RestartReasons are every reason Hooks.Restarted is given.
var RestartReasons = []string{RestartCrashed, RestartReleased, RestartExitedBeforeReady}

// Triggers are every trigger Hooks.Woke is given.
var Triggers = []string{TriggerSpec, TriggerDaemonDir, TriggerOwnerExit, TriggerChildExit, TriggerRequeue, TriggerResync, TriggerReload}

// Phases are every phase a DaemonStatus can have.
var Phases = []Phase{PhaseRunning, PhaseStarting, PhaseReplacing, PhaseStopped, PhaseHeld, PhaseCrashLoopBackOff, PhaseRefused, PhaseUnmanaged}

func (h Hooks) passed(p PassResult, since time.Time) {
	if h.Passed != nil {
		h.Passed(p, time.Since(since))
	}
}

func (h Hooks) reconciled(name string, out Outcome, since time.Time) {
	if h.Reconciled != nil {
		h.Reconciled(name, out, time.Since(since))
	}
}

func (h Hooks) restarted(name, reason string) {
	if h.Restarted != nil {
		h.Restarted(name, reason)
	}
}

func (h Hooks) woke(trigger string) {
	if h.Woke != nil {
		h.Woke(trigger)
	}
}

// restarted counts a restart of the attempt's name, and says why.
func (a *attempt) restarted(reason string) {
	a.st.restarts++
	a.r.opts.Hooks.restarted(a.name, reason)
}
