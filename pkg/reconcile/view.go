package reconcile

import (
	"maps"
	"slices"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// View is `reconciler status`: status.json merged with a live look at every
// name's record, so a daemon that died since the last pass shows as such.
// It reads only; it writes, creates and signals nothing.
func View(store ownership.Store, holds Holds, agentDir string, res *spec.Result, only []string) (*Status, error) {
	saved, err := ReadStatus(agentDir)
	if err != nil {
		return nil, err
	}
	byName := map[string]DaemonStatus{}
	for _, d := range saved.Daemons {
		byName[d.Name] = d
	}
	names := append(slices.Collect(maps.Keys(byName)), res.Names()...)
	names = append(names, daemonDirNames(agentDir)...)
	slices.Sort(names)
	names = slices.Compact(names)
	// A listing that fails (one unreadable hold, a slow answer) asks each
	// name alone; a name whose hold cannot be read either is shown as the
	// pass would judge it: whether it is held is unknown.
	held, heldErr := holds.Holds()
	var removed []string
	if inv, err := loadInventory(InventoryPath(agentDir), logr.Discard()); err == nil {
		removed = inv.removedList()
	}
	out := newStatus(saved.ObservedAt.Time, res)
	out.Problems = saved.Problems
	for _, n := range names {
		if len(only) > 0 && !slices.Contains(only, n) {
			continue
		}
		if _, listed := byName[n]; !listed && res.Lookup(n) == nil && slices.Contains(removed, n) {
			// Pruned: out of the status while nothing of it runs, as the
			// pass leaves it out.
			obs := store.Observe(n)
			rec := obs.Record
			if offTable(true, obs.Classify(ownDesired(rec)), false) {
				continue
			}
		}
		hold, holdErr := holdOf(held, n), heldErr
		if heldErr != nil {
			hold, holdErr = holds.Hold(n)
		}
		d := live(byName[n], n, res.Lookup(n), store, hold, holdErr, "")
		d.Election = electionOf(store, n)
		// Judged with res, as the top of the status is: the saved
		// condition is the last pass's spec, maybe another shell's.
		meta.SetStatusCondition(&d.Conditions, specValidCondition(res))
		out.Daemons = append(out.Daemons, d)
	}
	return out, nil
}

// live refreshes one saved status with what the record and the kernel say
// now, and the operator's hold on the name (nil: none) as the holds say it
// (holdsErr: why they could not say); termTimedOut is the owner that
// outlasted a stop without --force, as this process knows it ("" when it
// knows none).
func live(s DaemonStatus, name string, d *spec.Daemon, store ownership.Store, hold *Hold, holdsErr error, termTimedOut string) DaemonStatus {
	s.Name = name
	if d != nil {
		s.Provider, s.DesiredState = string(d.Config.Provider), string(d.Config.State)
		s.DesiredGeneration = d.Config.Generation.Opt()
	}
	obs := store.Observe(name)
	rec := obs.Record
	desired := ownDesired(rec)
	l := look{name: name, rec: rec, declared: true, hold: hold, holdsErr: holdsErr, want: stopKill, termTimedOut: termTimedOut}
	switch {
	case d != nil:
		desired = desiredOf(d)
		l.want = stoppingOf(d.Config.State == spec.StateStopped, hold)
		l.identity, l.generation = d.Identity, d.Config.Generation
	case hold != nil:
		// Known only by its record, and held: as hard as its stop asked,
		// so a stop without --force that timed out is shown as one.
		l.want = stoppingOf(false, hold)
	}
	l.cls = obs.Classify(desired)
	if h := s.TrackedOwner; h != nil {
		l.tracked = trackedLook{owner: &ownership.State{PID: h.PID, OwnerID: h.OwnerID}, checked: true, runs: trackedRuns(store, h)}
	}
	return looked(s, l)
}

// looked is the live look at l: saved status s corrected by decide's plan
// for l with its effects off (glance), the operator's hold included.
func looked(s DaemonStatus, l look) DaemonStatus {
	p := glance(l)
	s = liveStatus(s, l.rec, l.cls, p)
	if l.holdsErr != nil {
		// Whether it is held is unknown (glance looks past that): the
		// pass's refusal of a declared name, as it will say it, and never
		// "no longer held".
		if l.declared {
			r := holdsUnknown(l)
			s.Phase, s.Reason, s.Message, s.Converged = r.phase, r.reason, r.message, r.converged
			setReady(&s)
		}
		return s
	}
	return holdLook(s, l.hold, p)
}

// glance is decide with its effects off, for the live look: it waits for
// nothing and asks nothing. A name no source declares is looked at as one
// wanted stopped: whether it is pruned or left alone matters only to a
// pass that acts.
func glance(l look) plan {
	l.waitedRelease, l.probed, l.holdsErr = true, true, nil
	return decide(l)
}

// trackedRuns reports whether the owner the last pass kept a reference to
// (its record gone) still runs: proved by a fresh reference, so a PID reused
// since proves nothing.
func trackedRuns(store ownership.Store, h *TrackedOwner) bool {
	if h == nil {
		return false
	}
	ref, err := store.Reference(ownership.State{PID: h.PID, Incarnation: h.Incarnation, OwnerID: h.OwnerID})
	if err != nil {
		return false
	}
	defer ref.Close()
	exited, err := ref.Exited()
	return err == nil && !exited
}

// liveStatus is saved (the last pass's report, or nothing) corrected by a
// look at the record now, judged as cls, and decide's plan for that look
// (glance). What the look cannot trust is never shown as Stopped or
// Ready, whatever the last pass said: decide's refusals (a record that is
// malformed, or names a live process that is not proved gone nor proved
// the owner; a name without a record while the owner last tracked for it
// still runs), and an owner that outlasted a stop without --force, are
// shown as decide says them. Where decide would act, the
// look shows the pass's report as the record now bears it out: an owner
// the look finds gone is not Running. Ready is recomputed from the result.
func liveStatus(s DaemonStatus, rec ownership.Record, cls ownership.Classification, p plan) DaemonStatus {
	wasStopped := stoppedPhase(s.Phase)
	s = corrected(withRecord(s, rec.State), rec.State, cls, p)
	switch {
	case s.Phase == "" && s.DesiredState != "":
		// Declared, its owner live, and no pass has judged it yet (the
		// loop's first pass waits for it): not another controller's.
		s.Phase, s.Reason, s.Message = PhaseStarting, cls.Reason, cls.Message
	case s.Phase == "":
		s.Phase = PhaseUnmanaged
	}
	// A look can undo the pass's convergence, never grant it: a healthy
	// owner, or a stop (held or not) that still has no owner, keeps it.
	if wasStopped {
		s.Converged = s.Converged && stoppedPhase(s.Phase) && s.PID == 0
	} else {
		s.Converged = s.Converged && cls.Health == ownership.HealthHealthy
	}
	if s.Converged && relayBlocked(&s) {
		// Blocked since the pass: Degraded as the next pass will say.
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionTrue, Reason: s.Reason, Message: s.Message})
	}
	setReady(&s)
	return s
}

// withRecord is s with what the record st (nil: none) says of its owner.
func withRecord(s DaemonStatus, st *ownership.State) DaemonStatus {
	s.TransportError, s.Relay, s.Logins = "", nil, nil
	if st == nil {
		return s
	}
	s.OwnerID, s.Generation, s.TransportError = st.OwnerID, st.Generation, st.TransportError
	s.Logins = loginsStatusOf(st.Logins)
	s.Machine = st.Machine
	if st.StoppedAt == nil {
		s.Relay = relayStatusOf(st.Relay)
	}
	if s.Provider == "" {
		s.Provider = st.Kind
	}
	return s
}

// corrected is the phase and pid the look shows: decide's report where
// the look alone can make it (p), else the pass's as the record st,
// judged as cls, bears it out.
func corrected(s DaemonStatus, st *ownership.State, cls ownership.Classification, p plan) DaemonStatus {
	switch {
	case p.step == stepRefuse || p.step == stepAwaitTracked || p.step == stepStopTimedOut:
		s.Phase, s.Reason, s.Message, s.Converged = p.phase, p.reason, p.message, false
		s.PID = 0
		switch {
		case p.watch != nil:
			s.PID = p.watch.PID
		case st != nil && cls.Class != ownership.ClassMalformed && (cls.AmbiguouslyLive || st.StoppedAt == nil):
			s.PID = st.PID
		}
	case cls.Class == ownership.ClassStopped || cls.Class == ownership.ClassAbsent:
		s.PID = 0
		switch s.Phase {
		case PhaseRunning, PhaseStarting, PhaseReplacing, "":
			s.Phase, s.Reason, s.Message = PhaseStopped, cls.Reason, cls.Message
		}
	case cls.Health == ownership.HealthHealthy:
		s.PID = st.PID
	default:
		s.PID = st.PID
		if s.Phase == PhaseRunning {
			s.Reason, s.Message = cls.Reason, cls.Message
		}
	}
	return s
}

// holdOf is name's hold, nil when it has none.
func holdOf(holds map[string]Hold, name string) *Hold {
	if h, ok := holds[name]; ok {
		return &h
	}
	return nil
}

// stoppedPhase: a phase that wants no owner running.
func stoppedPhase(p Phase) bool { return p == PhaseStopped || p == PhaseHeld }

// electionOf is name's election as store sees it now; nil for a store
// without elections (one machine's files).
func electionOf(store ownership.Store, name string) *Election {
	self := store.Machine()
	if self == "" {
		return nil
	}
	who, err := store.Leader(name)
	e := &Election{Leader: who, Self: self}
	if err != nil {
		e.Error = err.Error()
	}
	return e
}
