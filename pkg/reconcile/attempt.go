package reconcile

import (
	"context"
	"errors"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
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
	// hold is the operator's hold on the name (reconciler stop), nil when
	// none; holdsErr says why the holds could not be read.
	hold     *Hold
	holdsErr error
	// leaves: the name is left out of the status from now on (pruned, or
	// pruned before and nothing of it runs).
	leaves bool
	// unseen: the name's occupant cannot be seen from here (unseen.go).
	unseen bool
}

// run looks, asks decide, and carries out the plan's effect until decide
// answers with a report, which is the attempt's status. The status shows
// what the latest look at the record saw (but not the released owner a
// wait is for).
func (a *attempt) run() {
	l := a.look()
	fresh := true
	for {
		p := decide(l)
		if fresh && p.step != stepWaitRelease {
			a.observe(l.rec)
			fresh = false
		}
		if p.watch != nil {
			a.owner = p.watch
		}
		if p.expectNone {
			a.st.expecting = ""
		}
		if !p.step.effect() {
			a.report(p)
			return
		}
		fresh = a.perform(p, &l)
	}
}

// report ends the attempt with decide's report.
func (a *attempt) report(p plan) {
	a.status.Phase, a.status.Reason, a.status.Message, a.status.Converged = p.phase, p.reason, p.message, p.converged
	a.degraded, a.requeue, a.unseen, a.leaves = p.degraded, p.requeue, p.unseen, p.leaves
	switch p.step {
	case stepKeep:
		a.st.expecting = p.watch.OwnerID
		a.st.crash.healthy(a.r.now())
	case stepReconnect:
		a.st.expecting = p.watch.OwnerID
	case stepStopTimedOut:
		a.st.termTimedOut = p.watch.OwnerID
	case stepAwaitTracked:
		a.status.PID, a.status.OwnerID = p.watch.PID, p.watch.OwnerID
	case stepLeave:
		a.forgetIfGone()
	}
}

// look is one observation of the name, with what the reconciler
// remembers of it.
func (a *attempt) look() look {
	a.releaseReaped()
	l := look{name: a.name, now: a.r.now()}
	if a.d == nil {
		obs := a.r.store.Observe(a.name)
		l.rec = obs.Record
		l.cls = obs.Classify(ownDesired(l.rec))
		a.r.inv.refresh() // another process may have spawned it since
		l.inInventory, l.removed, l.specValid = a.r.inv.has(a.name), a.r.inv.wasRemoved(a.name), a.res.Valid()
		l.graceful = spec.DefaultGracefulTimeout
		if t := a.st.tracked; t != nil {
			l.tracked.owner = &t.state
			l.tracked.alive = a.r.trackedAlive(a.name) != nil
		}
		return l
	}
	// Reading checks the daemon dir itself (an unsafe one reads as a
	// malformed record); the whole path is checked, and created, only
	// before something is written or spawned there.
	l.rec, l.cls = a.r.observe(a.name, desiredOf(a.d))
	l.declared, l.hold, l.holdsErr = true, a.hold, a.holdsErr
	l.want = stoppingOf(a.d.Config.State == spec.StateStopped, a.hold)
	l.identity, l.generation, l.graceful = a.d.Identity, a.d.Config.Generation, a.d.Config.GracefulTimeout
	l.termTimedOut, l.expecting = a.st.termTimedOut, a.st.expecting
	// Our own spawn is judged at each look: it may have exited while the
	// last one waited.
	if c := a.st.child; c != nil && !c.exited() {
		l.child = c.ownerID
	}
	if t := a.st.tracked; t != nil {
		l.tracked.owner = &t.state
	}
	a.lookCrash(&l)
	return l
}

// lookCrash adds the crash loop's state to l; the log tail is read only
// while it holds a spawn off.
func (a *attempt) lookCrash(l *look) {
	l.crash = crashLook{wait: a.st.crash.wait(l.now), crashes: a.st.crash.crashes, lastExit: a.status.LastExit}
	if l.crash.wait > 0 {
		l.crash.logTail = logTail(a.paths.Dir, 3)
	}
}

// relook takes a fresh look at the record after an effect changed it.
func (a *attempt) relook(l *look, rec ownership.Record, cls ownership.Classification) {
	l.rec, l.cls, l.now = rec, cls, a.r.now()
}

// forgetIfGone forgets a pruned name once its dir is gone.
func (a *attempt) forgetIfGone() {
	if _, err := os.Lstat(a.paths.Dir); errors.Is(err, os.ErrNotExist) {
		if err := a.r.inv.forgetRemoved(a.name); err != nil {
			a.r.log.Error(err, "forgetting a removed name whose dir is gone", "name", a.name)
		}
	}
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
	a.status.Logins = loginsStatusOf(s.Logins)
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

// ownDesired is what a record no spec declares is judged against: its own
// daemon (its kind, identity and generation, a legacy record's none as 0),
// so a proved owner can still be stopped.
func ownDesired(rec ownership.Record) ownership.Desired {
	if rec.State == nil {
		return ownership.Desired{}
	}
	g, _ := rec.State.Generation.Get()
	return ownership.Desired{Kind: rec.State.Kind, Identity: rec.State.Identity, Generation: g}
}
