package reconcile

import (
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
)

// decideRun judges a name wanted running whose owner is proved or absent.
func decideRun(l look) plan {
	cls := l.cls
	switch cls.Class {
	case ownership.ClassAbsent, ownership.ClassStopped:
		if l.child != "" && (l.rec.State == nil || l.rec.State.OwnerID != l.child) {
			// Ours runs and the record is not its own: it has not
			// published yet, and a second would only exit 3.
			return plan{step: stepAwaitChild}
		}
		return startGate(l)
	case ownership.ClassDrifted, ownership.ClassReplaceable:
		return plan{step: stepReplace, phase: PhaseReplacing}
	case ownership.ClassCompatible, ownership.ClassNewer:
		return attach(l)
	}
	return refusal(l, cls.Reason, cls.Message)
}

// attach keeps a matching owner: healthy is done, starting is waited for
// (bounded), hung is replaced (a newer one refused), transport down is
// reported and left to reconnect.
func attach(l look) plan {
	s := l.rec.State // signalable: alive with its incarnation proven
	switch l.cls.Health {
	case ownership.HealthHealthy:
		return running(l)
	case ownership.HealthHung:
		if l.cls.Class == ownership.ClassNewer {
			return refusal(l, ownership.ReasonGenerationAhead, "a newer generation owns it and is hung; it is never signalled")
		}
		return plan{step: stepReplace, phase: PhaseReplacing, watch: s}
	case ownership.HealthStarting:
		return plan{step: stepAwaitStarting, phase: PhaseStarting, watch: s}
	}
	p := plan{step: stepReconnect, phase: PhaseRunning, reason: ownership.ReasonTransportUnhealthy,
		message: "the daemon is alive but its transport is down: " + s.TransportError, watch: s, requeue: ownership.HeartbeatTTL}
	if s.TransportReason != "" {
		// A cause reconnecting will not fix (another consumer of the
		// token, a webhook, a spent login budget): someone has to act.
		p.reason, p.degraded = s.TransportReason, true
	}
	return p
}

// running keeps a healthy owner, looked at again when its heartbeat would
// go stale, so a hung daemon is caught on time without polling. A relay
// blocked by a configuration error is not converged.
func running(l look) plan {
	s := l.rec.State
	p := plan{step: stepKeep, phase: PhaseRunning, reason: ReasonReady, message: "healthy", converged: true, watch: s,
		requeue: max(time.UnixMilli(s.HeartbeatAt).Add(ownership.HeartbeatTTL).Sub(l.now), time.Second)}
	if l.cls.Class == ownership.ClassNewer {
		p.reason, p.message = ownership.ReasonGenerationAhead, "healthy at a newer generation than the spec; attached, never downgraded"
	}
	if b := blockedRelay(s); b != nil {
		p.reason, p.message, p.converged, p.degraded = b.Reason, b.Message, false, true
	}
	return p
}

// blockedRelay is what blocks a running owner's relay, nil when nothing
// does (see relayBlocked).
func blockedRelay(s *ownership.State) *ownership.RelayBlock {
	if s.StoppedAt != nil || s.PID == 0 {
		return nil
	}
	if r := relayStatusOf(s.Relay); r != nil {
		return r.Blocked
	}
	return nil
}

// startGate decides a start where no record shows an owner: never beside
// the tracked owner whose record vanished (it still runs after its wait),
// not before the exit of the owner believed to run is counted, never over
// the service's final refusal of this very config (identity and
// generation), never before the crash loop's wait is over.
func startGate(l look) plan {
	switch {
	case l.needsTracked():
		return plan{step: stepWaitTracked}
	case l.trackedRunning():
		return awaitTracked(l)
	case l.expecting != "":
		return plan{step: stepNoteExit}
	}
	if s := l.rec.State; terminal(s) && s.Identity == l.identity && s.Generation == l.generation.Opt() {
		return refusal(l, s.Terminated.Reason, finalRefusal(s))
	}
	if l.crash.wait > 0 {
		return plan{step: stepBackOff, phase: PhaseCrashLoopBackOff, reason: ReasonCrashLoopBackOff,
			message: crashMessage(l.crash, l.rec), degraded: true, requeue: l.crash.wait}
	}
	return plan{step: stepSpawn, reason: ReasonNotReady}
}

// finalRefusal says that the service refused the daemon whose record is s
// for good (exit 78), in a pass that would start it and in the one that
// saw it exit.
func finalRefusal(s *ownership.State) string {
	return "the service refused this daemon for good: " + s.Terminated.Message + "; not retried until the token or generation changes"
}

// terminal reports a record whose daemon exited on a refusal that retrying
// cannot fix (exit 78): anything but an unexpected transport stop.
func terminal(s *ownership.State) bool {
	return s != nil && s.Terminated != nil && s.Terminated.Reason != daemonproto.ReasonTransportStopped
}

// afterReplace follows a stop proven complete: the old owner may have
// handed over on its way out, and a successor that proves to be this
// name's daemon at the desired generation (or a newer one) is attached
// to, never spawned beside.
func afterReplace(l look) plan {
	if successor(l.cls) {
		return attach(l)
	}
	return plan{step: stepSpawn, phase: PhaseReplacing, reason: l.replaced}
}

// successor reports whether cls, after a replaced owner was proven gone,
// proves the successor it handed over to.
func successor(cls ownership.Classification) bool {
	return cls.Signalable && (cls.Class == ownership.ClassCompatible || cls.Class == ownership.ClassNewer)
}

// afterWait judges the wait for a new or starting owner: healthy is kept;
// our spawn that died before it is a crash (the crash loop's wait is
// already counted), unless the service refused it for good.
func afterWait(l look) plan {
	r := l.ready
	switch {
	case r.err == nil:
		return running(l)
	case !r.died:
		return plan{step: stepNotReady, phase: PhaseStarting, reason: r.why, message: r.err.Error(), requeue: time.Second}
	}
	if s := l.rec.State; terminal(s) && s.OwnerID == r.child {
		p := refusal(look{}, s.Terminated.Reason, finalRefusal(s))
		p.requeue = l.crash.wait
		return p
	}
	if l.crash.crashes >= 2 {
		return plan{step: stepBackOff, phase: PhaseCrashLoopBackOff, reason: ReasonCrashLoopBackOff,
			message: crashMessage(l.crash, l.rec), degraded: true, requeue: l.crash.wait}
	}
	return plan{step: stepNotReady, phase: PhaseStarting, reason: ReasonNotReady,
		message: r.err.Error() + "; respawning at once", requeue: l.crash.wait}
}

// spawnRefused reports a spawn that got no owner to wait for: what
// occupies the name (spawning it would only add an exit, and exit after
// exit a crash-loop back-off, over what only an operator or time can
// fix; the daemon's own Acquire is the guard, this is the report), an
// unsafe daemon dir, or a spawn that failed.
func spawnRefused(l look, t *spawnTry) plan {
	phase := PhaseStopped
	if l.replaced != "" {
		phase = PhaseReplacing
	}
	switch {
	case t.occupant != nil:
		return occupied(l.name, t.occupant)
	case t.prepareErr != nil:
		return refusal(look{}, ReasonUnsafeDaemonDir, t.prepareErr.Error())
	}
	return plan{step: stepFailed, phase: phase, reason: ReasonSpawnFailed, message: t.err.Error(), degraded: true, requeue: time.Second}
}

// occupied reports what keeps a name from being spawned.
func occupied(name string, err error) plan {
	var lock *ownership.HeldError
	var busy *ownership.ReclaimBusyError
	var p plan
	switch {
	case ledElsewhereBy(err) != nil:
		return standBy(name, ledElsewhereBy(err))
	case unseenOccupant(name, err) != "":
		return cannotExamine(unseenOccupant(name, err))
	case errors.As(err, &lock) && lock.Source == ownership.NameLockFile:
		// The kernel knows of a live daemon of this name even when no file
		// does (sdk/ removed or restored under it): start nothing beside it.
		msg := fmt.Sprintf("a daemon of %s (pid %d) still holds its name lock though no record proves it; no second owner is started until it exits", name, lock.PID)
		if lock.OtherUser {
			msg = fmt.Sprintf("pid %d of another user (uid %d) holds the name lock of %s: no second owner can start until it lets go", lock.PID, lock.OtherUID, name)
		}
		p = refusal(look{}, ReasonOwnerWithoutRecord, msg)
	case errors.As(err, &lock):
		p = refusal(look{}, ReasonOwnerWithoutRecord, fmt.Sprintf(
			"owner.lock names live pid %d, which is or may be a daemon of %s, though no record proves it runs; no second owner is started until it exits", lock.PID, name))
	case errors.As(err, &busy):
		p = refusal(look{}, ownership.Reason(err), err.Error()+"; spawning once it ends")
	default:
		return refusal(look{}, ownership.Reason(err), err.Error()+"; nothing is spawned until it is fixed")
	}
	p.requeue = time.Second
	return p
}

// crashMessage says how the crash loop stands and why the last owner
// ended.
func crashMessage(c crashLook, rec ownership.Record) string {
	msg := fmt.Sprintf("exited %d times in a row; next start in %v", c.crashes, c.wait.Round(time.Millisecond))
	if ex := c.lastExit; ex != nil {
		msg += "; last exit: " + ex.Message
	} else if rec.State != nil && rec.State.Terminated != nil {
		msg += fmt.Sprintf("; last exit: %s: %s", rec.State.Terminated.Reason, rec.State.Terminated.Message)
	}
	if c.logTail != "" {
		msg += "; daemon.log: " + c.logTail
	}
	return msg
}
