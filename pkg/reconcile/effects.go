package reconcile

import (
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// perform carries out a plan's effect and adds what it learned to l. It
// reports whether it read the record again (the status then shows the
// new look). It decides nothing: whatever it found, decide judges.
func (a *attempt) perform(p plan, l *look) (fresh bool) {
	switch p.step {
	case stepWaitRelease:
		// Released but not gone yet: give it the graceful timeout to exit,
		// then look again. It is no longer an owner.
		a.r.waitReleasedExit(a.ctx, a.name, l.rec.State, l.graceful)
		*l = a.look()
		l.waitedRelease = true
		return true
	case stepWaitTracked:
		l.tracked.checked, l.tracked.runs = true, a.trackedStillRuns(l.graceful)
	case stepProbe:
		l.probed, l.occupant = true, a.r.store.SpawnBlocked(a.name)
	case stepNoteExit:
		a.noteUnexpectedExit(l)
	case stepStop:
		l.stopErr = a.stop(l.rec.State, "stop", p.escalate)
		l.stopped = l.stopErr == nil
	case stepReplace:
		return a.replace(l)
	case stepSpawn:
		return a.spawnAndWait(p, l)
	case stepAwaitChild:
		return a.awaitReady(l, a.st.child.ownerID, a.st.child)
	case stepAwaitStarting:
		return a.awaitReady(l, l.rec.State.OwnerID, nil)
	case stepRemove:
		l.pruneErr = a.r.inv.remove(a.name)
		l.pruned = l.pruneErr == nil
	}
	return false
}

// replace stops the owner to replace it, and looks again: it may have
// handed over on its way out. The status shows that look only when it
// found a successor to attach to.
func (a *attempt) replace(l *look) (fresh bool) {
	if l.stopErr = a.stop(l.rec.State, "reload", true); l.stopErr != nil {
		return false
	}
	l.replaced = l.cls.Reason
	rec, cls := a.r.observe(a.name, desiredOf(a.d))
	a.relook(l, rec, cls)
	if successor(cls) {
		a.r.log.Info("attaching to the successor the old owner handed over to", "name", a.name, "ownerId", rec.State.OwnerID, "pid", rec.State.PID)
		return true
	}
	return false
}

// awaitReady waits (bounded) for the owner ownerID, c when it is our own
// spawn, to be healthy, and looks again.
func (a *attempt) awaitReady(l *look, ownerID string, c *child) (fresh bool) {
	rec, cls, err := a.r.waitOwnerHealthy(a.ctx, a.d, a.paths, ownerID, c)
	a.relook(l, rec, cls)
	l.ready = &readiness{err: err, why: ReasonNotReady}
	return true
}

// noteUnexpectedExit counts the exit of the owner believed to run, now
// that its record shows it gone without being asked to go by this
// reconciler: a crash, or a clean release (an operator's stop).
func (a *attempt) noteUnexpectedExit(l *look) {
	a.noteExit(a.st.expecting, l.rec)
	a.st.expecting, l.expecting = "", ""
	if crashed(l.rec) {
		a.restarted(RestartCrashed)
		a.st.crash.exited(l.now)
	} else {
		a.restarted(RestartReleased)
		a.st.crash.newOwner()
	}
	a.lookCrash(l)
}

// crashed tells an unexpected exit (no release, or a recorded failure) from a
// clean release on request.
func crashed(rec ownership.Record) bool {
	s := rec.State
	return s == nil || s.StoppedAt == nil || s.Terminated != nil
}

// spawnAndWait spawns and waits for the new owner to be healthy. A spawn
// that dies before it is a crash, counted here, however it ended.
func (a *attempt) spawnAndWait(p plan, l *look) (fresh bool) {
	a.progressing = true
	if err := a.r.store.SpawnBlocked(a.name); err != nil {
		l.spawn = &spawnTry{occupant: err}
		return false
	}
	if err := a.r.store.Prepare(a.name); err != nil {
		l.spawn = &spawnTry{prepareErr: err}
		return false
	}
	c, err := a.r.spawn(a.d, a.paths)
	if err != nil {
		l.spawn = &spawnTry{err: err}
		return false
	}
	a.st.child = c
	a.st.expecting = c.ownerID
	a.st.crash.newOwner()
	rec, cls, err := a.r.waitOwnerHealthy(a.ctx, a.d, a.paths, c.ownerID, c)
	a.relook(l, rec, cls)
	l.ready = &readiness{err: err, why: p.reason, child: c.ownerID}
	if err == nil {
		return true
	}
	select {
	case <-c.done:
		l.ready.died = true
		a.noteExit(c.ownerID, rec)
		a.st.expecting = ""
		a.restarted(RestartExitedBeforeReady)
		next := a.st.crash.exited(a.r.now())
		a.lookCrash(l)
		l.crash.wait = max(next.Sub(a.r.now()), 0)
		l.crash.logTail = logTail(a.paths.Dir, 3)
	default:
	}
	return true
}

// stop runs the fenced stop sequence on s, SIGKILL only if escalate; an
// error when the owner could not be proven dead, in which case nothing
// may be spawned.
func (a *attempt) stop(s *ownership.State, action string, escalate bool) error {
	a.progressing = true
	if s == nil {
		return nil
	}
	a.st.expecting = ""
	graceful, kill := spec.DefaultGracefulTimeout, spec.DefaultKillTimeout
	var want *ownership.Desired
	if a.d != nil {
		d := desiredOf(a.d)
		want = &d
		graceful, kill = a.d.Config.GracefulTimeout, a.d.Config.KillTimeout
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
	return a.r.stopOwner(a.ctx, a.name, want, *s, ownership.StopOptions{Action: action, Graceful: graceful, Kill: kill, Escalate: escalate}, why)
}

// trackedStillRuns waits up to the graceful timeout (once per owner: later
// passes only look, so the pass lock is not held for as long as it runs)
// for the owner tracked for this name to exit, and reports whether it
// still runs. One that lost its record exits at its next heartbeat.
func (a *attempt) trackedStillRuns(graceful time.Duration) bool {
	l := a.st.tracked
	if l == nil {
		return false
	}
	wait := graceful
	if l.waited {
		wait = 0
	}
	if wait > 0 {
		a.r.progress(Progress{Name: a.name, Wait: WaitLastOwnerExit, PID: l.state.PID, Deadline: time.Now().Add(wait)})
		defer a.r.progress(Progress{Name: a.name})
	}
	if waitExit(a.ctx, l.proc, wait) {
		a.st.forget()
		return false
	}
	l.waited = true
	return true
}
