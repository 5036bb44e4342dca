package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// Reasons the reconciler itself gives. The ownership package names the
// rest, and the reconciler uses its constants where it means the same
// (GenerationAhead, TransportUnhealthy); a daemon's terminated reasons are
// daemonproto's.
const (
	ReasonReady            = "Ready"
	ReasonStopped          = "Stopped"
	ReasonUnmanaged        = "Unmanaged"
	ReasonPruned           = "Pruned"
	ReasonPruneDeferred    = "PruneDeferred"
	ReasonCrashLoopBackOff = "CrashLoopBackOff"
	ReasonNotReady         = "NotReady"
	ReasonNotProvenDead    = "NotProvenDead"
	ReasonSpawnFailed      = "SpawnFailed"
	ReasonUnsafeDaemonDir  = "UnsafeDaemonDir"
)

// attempt is one Reconcile call's working state.
type attempt struct {
	r       *Reconciler
	ctx     context.Context
	name    string
	d       *spec.Daemon
	res     *spec.Result
	st      *nameState
	paths   ownership.Paths
	status  DaemonStatus
	requeue time.Duration
	// progressing is set when this attempt spawned or stopped something.
	progressing bool
	degraded    bool
	owner       *ownership.State
	// held is the operator's hold on the name (reconciler stop), nil when
	// none; holdsErr says why holds.json could not be read.
	hold     *Hold
	holdsErr error
	// leaves: the name is left out of the status from now on (pruned, or
	// pruned before and nothing of it runs).
	leaves bool
	// unseen: the name's holder cannot be seen from here (unseen.go).
	unseen bool
}

func (a *attempt) run() {
	if a.d == nil {
		a.notDesired()
		return
	}
	if a.holdsErr != nil {
		// Whether an operator stopped it is unknown: touch nothing.
		rec, cls := a.r.observe(a.name, desiredOf(a.d))
		a.observe(rec)
		if cls.Signalable {
			a.owner = rec.State
		}
		a.refuse(ReasonHoldsUnreadable, a.holdsErr.Error()+"; nothing is started or stopped until it is fixed")
		return
	}
	want := stoppingOf(a.d.Config.State == spec.StateStopped, a.hold)
	mem := memory{termTimedOut: a.st.termTimedOut}
	for {
		// Our own spawn is judged at each look: it may have exited while
		// the last one waited.
		mem.child = ""
		if c := a.st.child; c != nil && !c.exited() {
			mem.child = c.ownerID
		}
		// Reading checks the daemon dir itself (an unsafe one reads as a
		// malformed record); the whole path is checked, and created, only
		// before something is written or spawned there.
		rec, cls := a.r.observe(a.name, desiredOf(a.d))
		p := decide(rec, cls, want, mem)
		if p.step == stepWaitRelease {
			// Released but not gone yet: give it the graceful timeout to
			// exit, then judge again. It is no longer an owner.
			a.r.waitReleasedExit(a.ctx, a.name, rec.State, a.d.Config.GracefulTimeout)
			mem.waitedRelease = true
			continue
		}
		a.observe(rec)
		a.execute(p, rec, cls)
		if a.hold != nil && a.status.Phase == PhaseStopped && a.status.Converged {
			a.status.Phase, a.status.Reason = PhaseHeld, ReasonOperatorStopped
			a.status.Message = holdMessage(a.name, *a.hold)
		}
		return
	}
}

// execute carries out what decide chose.
func (a *attempt) execute(p plan, rec ownership.Record, cls ownership.Classification) {
	cfg := a.d.Config
	if p.step == stepStop || p.step == stepStopTimedOut || p.step == stepEnsureGone || p.step == stepAhead {
		a.st.expecting = "" // a stopped name expects no owner
	}
	switch p.step {
	case stepRefuse:
		a.refuse(p.reason, p.message)
		if cls.Signalable {
			// A proved owner refused (a hung newer one) is still the live
			// owner: the loop watches its exit and a reference is held.
			a.owner = rec.State
		}
		if p.exiting {
			a.owner = rec.State // its exit is what the loop waits for
			a.requeue = time.Second
		}
	case stepAhead:
		a.status.Phase, a.status.Reason = PhaseRunning, ownership.ReasonGenerationAhead
		a.status.Message = "a newer generation owns it; it is never signalled or downgraded"
	case stepStop:
		if a.stop(rec.State, "stop", cfg.GracefulTimeout, cfg.KillTimeout, p.escalate) {
			a.status.Phase, a.status.Reason, a.status.Converged = PhaseStopped, ReasonStopped, true
			a.status.Message = "stopped as the spec says"
		}
	case stepStopTimedOut:
		a.stopTimedOut(rec.State)
	case stepEnsureGone:
		if !a.trackedGone(cfg.GracefulTimeout) {
			return // not stopped while it still holds the connection
		}
		if msg := unseenOccupant(a.name, a.r.store.SpawnBlocked(a.name)); msg != "" {
			a.cannotExamine(msg) // its record looks dead from here only
			return
		}
		a.status.Phase, a.status.Reason, a.status.Converged = PhaseStopped, ReasonStopped, true
		a.status.Message = "not running, as the spec says"
	case stepReplace:
		if cls.Health == ownership.HealthHung {
			a.owner = rec.State // signalable: alive with its incarnation proven
		}
		a.status.Phase = PhaseReplacing
		if a.stop(rec.State, "reload", cfg.GracefulTimeout, cfg.KillTimeout, true) {
			a.replaceStopped(cls.Reason)
		}
	case stepKeep:
		a.attach(rec, cls)
	case stepAwaitChild:
		a.awaitChild()
	case stepStart:
		a.replaceAbsent(rec)
	}
}

// notDesired handles a name no valid source declares: prune it if this
// reconciler spawned it, else report it and touch nothing.
func (a *attempt) notDesired() {
	obs := a.r.store.Observe(a.name)
	rec := obs.Record
	a.observe(rec)
	a.r.inv.refresh() // another process may have spawned it since
	if !a.r.inv.has(a.name) {
		a.unmanaged(obs)
		return
	}
	if !a.res.Valid() {
		a.status.Phase, a.status.Reason = a.phaseOf(rec), ReasonPruneDeferred
		a.status.Message = "not pruned while a spec source is invalid"
		return
	}
	cls := obs.Classify(ownership.Desired{Kind: kindOf(rec), Identity: identityOf(rec), Generation: generationOf(rec)})
	if cls.Class == ownership.ClassMalformed || cls.AmbiguouslyLive {
		a.refuse(cls.Reason, cls.Message)
		return
	}
	if cls.Signalable {
		if !a.stop(rec.State, "stop", spec.DefaultGracefulTimeout, spec.DefaultKillTimeout, true) {
			return
		}
	} else if !a.trackedGone(spec.DefaultGracefulTimeout) {
		return // pruned only once nothing of it runs
	} else if msg := unseenOccupant(a.name, a.r.store.SpawnBlocked(a.name)); msg != "" {
		a.cannotExamine(msg) // its record looks dead from here only
		return
	}
	if err := a.r.inv.remove(a.name); err != nil {
		a.fail(ReasonPruned, err)
		return
	}
	a.status.Phase, a.status.Reason, a.status.Converged = PhaseStopped, ReasonPruned, true
	a.status.Message = "removed from the spec; stopped and proven gone, it leaves the inventory and the status (its dir and bus stay for reconciler gc)"
	a.leaves = true
}

// unmanaged reports a name no spec declares and this reconciler does not
// manage, touching nothing; one it pruned, of which nothing runs, leaves
// the status instead, and once its dir is gone it is forgotten.
func (a *attempt) unmanaged(obs ownership.Observation) {
	rec := obs.Record
	removed := a.r.inv.wasRemoved(a.name)
	cls := obs.Classify(ownership.Desired{Kind: kindOf(rec), Identity: identityOf(rec), Generation: generationOf(rec)})
	if offTable(removed, cls, a.r.trackedAlive(a.name) != nil) {
		a.leaves = true
		if _, err := os.Lstat(a.paths.Dir); errors.Is(err, os.ErrNotExist) {
			if err := a.r.inv.forgetRemoved(a.name); err != nil {
				a.r.log.Error(err, "forgetting a removed name whose dir is gone", "name", a.name)
			}
		}
		return
	}
	a.status.Phase, a.status.Reason = PhaseUnmanaged, ReasonUnmanaged
	a.status.Message = unmanagedMessage(removed)
	a.status.Converged = true
}

// replaceAbsent spawns where no owner runs, unless the last owner ended with a
// terminal refusal for this very config, or the crash loop says wait.
func (a *attempt) replaceAbsent(rec ownership.Record) {
	now := a.r.now()
	stillRuns := a.trackedStillRuns(a.d.Config.GracefulTimeout)
	if !stillRuns && a.st.expecting != "" {
		// The owner we saw running is gone without being asked to go by us.
		a.noteExit(a.st.expecting, rec)
		a.st.expecting = ""
		if crashed(rec) {
			a.restarted(RestartCrashed)
			a.st.crash.exited(now)
		} else {
			a.restarted(RestartReleased)
			a.st.crash.newOwner() // released cleanly (an operator's stop): not a crash
		}
	}
	wait := a.st.crash.wait(now)
	switch p := startGate(rec, a.d.Identity, a.d.Config.Generation, wait, stillRuns); p.step {
	case stepAwaitTracked:
		a.refuseForTracked(a.d.Config.GracefulTimeout)
	case stepRefuse:
		a.refuse(p.reason, p.message)
	case stepBackOff:
		a.status.Phase, a.status.Reason = PhaseCrashLoopBackOff, p.reason
		a.status.Message = a.crashMessage(rec, wait)
		a.degraded = true
		a.requeue = wait
	default:
		a.startAndWait(ReasonNotReady)
	}
}

// awaitChild waits for our last spawn, still starting and not yet
// published, rather than start a second one that would only exit 3.
func (a *attempt) awaitChild() {
	c := a.st.child
	a.status.Phase = PhaseStarting
	rec, cls, err := a.r.waitOwnerHealthy(a.ctx, a.d, a.paths, c.ownerID, c)
	a.observe(rec)
	if err == nil {
		a.running(rec, cls)
	} else {
		a.notReady(ReasonNotReady, err.Error())
	}
}

// terminal reports a record whose daemon exited on a refusal that retrying
// cannot fix (exit 78): anything but an unexpected transport stop.
func terminal(s *ownership.State) bool {
	return s != nil && s.Terminated != nil && s.Terminated.Reason != daemonproto.ReasonTransportStopped
}

// crashed tells an unexpected exit (no release, or a recorded failure) from a
// clean release on request.
func crashed(rec ownership.Record) bool {
	s := rec.State
	return s == nil || s.StoppedAt == nil || s.Terminated != nil
}

// attach keeps a matching owner: healthy is done, starting is waited for
// (bounded), hung is replaced, transport down is reported and left to reconnect.
func (a *attempt) attach(rec ownership.Record, cls ownership.Classification) {
	s := rec.State
	a.owner = s // signalable: alive with its incarnation proven
	switch cls.Health {
	case ownership.HealthHealthy:
		a.running(rec, cls)
	case ownership.HealthHung:
		if cls.Class == ownership.ClassNewer {
			a.refuse(ownership.ReasonGenerationAhead, "a newer generation owns it and is hung; it is never signalled")
			return
		}
		a.status.Phase = PhaseReplacing
		if a.stop(s, "reload", a.d.Config.GracefulTimeout, a.d.Config.KillTimeout, true) {
			a.replaceStopped(cls.Reason)
		}
	case ownership.HealthStarting:
		a.status.Phase = PhaseStarting
		rec, cls, err := a.r.waitOwnerHealthy(a.ctx, a.d, a.paths, s.OwnerID, nil)
		a.observe(rec)
		if err != nil {
			a.notReady(ReasonNotReady, err.Error())
			return
		}
		a.running(rec, cls)
	default: // transport down: the daemon is reconnecting
		a.st.expecting = s.OwnerID
		a.status.Phase, a.status.Reason = PhaseRunning, ownership.ReasonTransportUnhealthy
		a.status.Message = "the daemon is alive but its transport is down: " + s.TransportError
		a.requeue = ownership.HeartbeatTTL
	}
}

func (a *attempt) running(rec ownership.Record, cls ownership.Classification) {
	now := a.r.now()
	a.observe(rec)
	a.owner = rec.State
	a.st.expecting = rec.State.OwnerID
	a.st.crash.healthy(now)
	a.status.Phase, a.status.Reason, a.status.Converged = PhaseRunning, ReasonReady, true
	a.status.Message = "healthy"
	if cls.Class == ownership.ClassNewer {
		a.status.Reason = ownership.ReasonGenerationAhead
		a.status.Message = "healthy at a newer generation than the spec; attached, never downgraded"
	}
	if relayBlocked(&a.status) {
		a.degraded = true
	}
	// Look again when the heartbeat would go stale, so a hung daemon is
	// caught on time without polling.
	a.requeue = max(time.UnixMilli(rec.State.HeartbeatAt).Add(ownership.HeartbeatTTL).Sub(now), time.Second)
}

// replaceStopped follows a stop proven complete: the old owner may have
// handed over on its way out, so the record is judged again, and a
// successor that proves to be this name's daemon at the desired generation
// (or a newer one) is attached to, never spawned beside.
func (a *attempt) replaceStopped(why string) {
	rec, cls := a.r.observe(a.name, desiredOf(a.d))
	if cls.Signalable && (cls.Class == ownership.ClassCompatible || cls.Class == ownership.ClassNewer) {
		a.r.log.Info("attaching to the successor the old owner handed over to", "name", a.name, "ownerId", rec.State.OwnerID, "pid", rec.State.PID)
		a.observe(rec)
		a.attach(rec, cls)
		return
	}
	a.startAndWait(why)
}

// startAndWait spawns and waits for the new owner to be healthy.
func (a *attempt) startAndWait(why string) {
	a.progressing = true
	if a.spawnBlocked() {
		return
	}
	if err := a.r.store.Prepare(a.name); err != nil {
		a.refuse(ReasonUnsafeDaemonDir, err.Error())
		return
	}
	c, err := a.r.spawn(a.d, a.paths)
	if err != nil {
		a.fail(ReasonSpawnFailed, err)
		return
	}
	a.st.child = c
	a.st.expecting = c.ownerID
	a.st.crash.newOwner()
	a.status.Phase = PhaseStarting
	rec, cls, err := a.r.waitOwnerHealthy(a.ctx, a.d, a.paths, c.ownerID, c)
	a.observe(rec)
	if err == nil {
		a.running(rec, cls)
		return
	}
	select {
	case <-c.done:
		// Died before healthy: that is a crash, however it ended.
		a.noteExit(c.ownerID, rec)
		a.st.expecting = ""
		a.restarted(RestartExitedBeforeReady)
		next := a.st.crash.exited(a.r.now())
		a.requeue = max(next.Sub(a.r.now()), 0)
		a.status.Phase, a.status.Reason = PhaseCrashLoopBackOff, ReasonCrashLoopBackOff
		if s := rec.State; terminal(s) && s.OwnerID == c.ownerID {
			a.refuse(s.Terminated.Reason, "the service refused this daemon for good: "+s.Terminated.Message+"; not retried until the token or generation changes")
			return
		}
		a.status.Message = a.crashMessage(rec, a.requeue)
		a.degraded = a.st.crash.crashes >= 2
		if !a.degraded {
			a.status.Phase, a.status.Reason = PhaseStarting, ReasonNotReady
			a.status.Message = err.Error() + "; respawning at once"
		}
	default:
		a.notReady(why, err.Error())
	}
}

// spawnBlocked reports, and refuses, what would make the new daemon's
// Acquire fail: spawning it would only add an exit, and exit after exit a
// crash-loop back-off, over what only an operator or time can fix. The
// daemon's own Acquire is the guard; this is the report.
func (a *attempt) spawnBlocked() bool {
	err := a.r.store.SpawnBlocked(a.name)
	var occupied *ownership.HeldError
	var busy *ownership.ReclaimBusyError
	switch {
	case err == nil:
		return false
	case a.standBy(err):
	case unseenOccupant(a.name, err) != "":
		a.cannotExamine(unseenOccupant(a.name, err))
	case errors.As(err, &occupied) && occupied.Source == ownership.NameLockFile:
		// The kernel knows of a live daemon of this name even when no file
		// does (sdk/ removed or restored under it): start nothing beside it.
		msg := fmt.Sprintf("a daemon of %s (pid %d) still holds its name lock though no record proves it; no second owner is started until it exits", a.name, occupied.PID)
		if occupied.OtherUser {
			msg = fmt.Sprintf("pid %d of another user (uid %d) holds the name lock of %s: no second owner can start until it lets go", occupied.PID, occupied.OtherUID, a.name)
		}
		a.refuse(ReasonOwnerWithoutRecord, msg)
		a.requeue = time.Second
	case errors.As(err, &occupied):
		a.refuse(ReasonOwnerWithoutRecord, fmt.Sprintf(
			"owner.lock names live pid %d, which is or may be a daemon of %s, though no record proves it runs; no second owner is started until it exits", occupied.PID, a.name))
		a.requeue = time.Second
	case errors.As(err, &busy):
		a.refuse(ownership.Reason(err), err.Error()+"; spawning once it ends")
		a.requeue = time.Second
	default:
		a.refuse(ownership.Reason(err), err.Error()+"; nothing is spawned until it is fixed")
	}
	return true
}

func (a *attempt) notReady(reason, msg string) {
	a.status.Phase, a.status.Reason, a.status.Message = PhaseStarting, reason, msg
	a.requeue = time.Second
}

// stop runs the fenced stop sequence, SIGKILL only if escalate; false (and
// Degraded) if the owner could not be proven dead, in which case nothing
// may be spawned.
func (a *attempt) stop(s *ownership.State, action string, graceful, kill time.Duration, escalate bool) bool {
	a.progressing = true
	if s == nil {
		return true
	}
	a.st.expecting = ""
	var want *ownership.Desired
	if a.d != nil {
		d := desiredOf(a.d)
		want = &d
	}
	why := "the spec says Stopped"
	switch {
	case action == "reload":
		why = "to replace it"
	case a.d == nil:
		why = "removed from the spec"
	case a.hold != nil && a.d.Config.State != spec.StateStopped:
		why = "held stopped by reconciler stop"
	}
	err := a.r.stopOwner(a.ctx, a.name, want, *s, ownership.StopOptions{Action: action, Graceful: graceful, Kill: kill, Escalate: escalate}, why)
	if err == nil {
		return true
	}
	if errors.Is(err, ownership.ErrDidNotExit) {
		a.stopTimedOut(s)
		return false
	}
	if a.standBy(err) {
		return false
	}
	reason := ReasonNotProvenDead
	if !errors.Is(err, ownership.ErrNotProvenDead) {
		reason = "StopFailed"
	}
	a.refuse(reason, err.Error())
	a.requeue = 5 * time.Second // a process in uninterruptible sleep may yet die
	return false
}

// stopTimedOut reports an owner that outlasted a stop without --force: it
// is left running, never sent SIGKILL nor another SIGTERM by this
// reconciler, and watched, so its exit is seen.
func (a *attempt) stopTimedOut(s *ownership.State) {
	a.st.termTimedOut = s.OwnerID
	a.owner = s
	a.status.Phase, a.status.Reason, a.status.Converged = PhaseRunning, ReasonStopTimedOut, false
	a.status.Message = stopTimedOutMessage(a.name, s.PID)
	a.degraded = true
}

// stopTimedOutMessage says what is left of a stop without --force that
// timed out, for the status and the command's answer alike.
func stopTimedOutMessage(name string, pid int) string {
	return fmt.Sprintf("held stopped by reconciler stop without --force, and pid %d did not exit on its control request and SIGTERM; it is left running: reconciler stop --force %s ends it", pid, name)
}

func (a *attempt) refuse(reason, msg string) {
	a.status.Phase, a.status.Reason, a.status.Message = PhaseRefused, reason, msg
	a.degraded = true
}

func (a *attempt) fail(reason string, err error) {
	a.status.Reason, a.status.Message = reason, err.Error()
	if a.status.Phase == "" {
		a.status.Phase = PhaseStopped
	}
	a.degraded = true
	a.requeue = time.Second
}

// observe copies what the record says into the status.
func (a *attempt) observe(rec ownership.Record) {
	if rec.State == nil {
		return
	}
	s := rec.State
	a.status.PID, a.status.OwnerID, a.status.Generation = s.PID, s.OwnerID, s.Generation
	a.status.Machine = s.Machine
	a.status.TransportError = s.TransportError
	a.status.Relay = nil
	if s.StoppedAt == nil {
		a.status.Relay = relayStatusOf(s.Relay) // a released owner's relay is no longer running
	}
	t := metav1.NewTime(time.UnixMilli(s.StartedAt))
	a.status.StartedAt = &t
	if s.StoppedAt != nil {
		a.status.PID = 0
	}
}

func (a *attempt) phaseOf(rec ownership.Record) Phase {
	if rec.State != nil && rec.State.StoppedAt == nil {
		return PhaseRunning
	}
	return PhaseStopped
}

func (a *attempt) crashMessage(rec ownership.Record, wait time.Duration) string {
	msg := fmt.Sprintf("exited %d times in a row; next start in %v", a.st.crash.crashes, wait.Round(time.Millisecond))
	if ex := a.status.LastExit; ex != nil {
		msg += "; last exit: " + ex.Message
	} else if rec.State != nil && rec.State.Terminated != nil {
		msg += fmt.Sprintf("; last exit: %s: %s", rec.State.Terminated.Reason, rec.State.Terminated.Message)
	}
	if tail := logTail(a.paths.Dir, 3); tail != "" {
		msg += "; daemon.log: " + tail
	}
	return msg
}

func kindOf(rec ownership.Record) string {
	if rec.State == nil {
		return ""
	}
	return rec.State.Kind
}

func identityOf(rec ownership.Record) string {
	if rec.State == nil {
		return ""
	}
	return rec.State.Identity
}

func generationOf(rec ownership.Record) int64 {
	if rec.State == nil || rec.State.Generation == nil {
		return 0
	}
	return *rec.State.Generation
}

// standBy reports whether err says another machine of a fleet leads the
// name: spawning and stopping it are that machine's, and this one waits,
// Starting, not Degraded, woken when the election changes.
func (a *attempt) standBy(err error) bool {
	var led *ownership.LedElsewhereError
	if !errors.As(err, &led) {
		return false
	}
	msg := fmt.Sprintf("machine %q leads %s: it spawns and stops the daemon; this machine stands by", led.Leader, a.name)
	if led.Leader == "" {
		msg = fmt.Sprintf("no machine leads %s yet; this machine stands for it", a.name)
	}
	a.notReady(ownership.ReasonLedElsewhere, msg)
	a.requeue = 5 * time.Second
	return true
}
