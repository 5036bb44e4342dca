package reconcile

import (
	"errors"
	"os"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// ReasonOwnerWithoutRecord: the owner last proven for a name still runs
// though its record is gone; no second owner is started until it exits.
const ReasonOwnerWithoutRecord = "OwnerWithoutRecord"

// trackedOwner is the live owner a pass last proved for a name, tracked by a
// process reference. A record can vanish while its owner runs on (an
// operator's rm -rf, a restored backup), and the owner keeps its connection
// until its next heartbeat finds the loss: the reference is how the
// reconciler knows it must not start a second one meanwhile.
type trackedOwner struct {
	state ownership.State
	proc  ownership.OwnerRef
	// waited: one pass has waited the graceful timeout for it already; later
	// passes only look, so the pass lock is not held for as long as it runs.
	waited bool
}

// remember holds a reference to a live owner the pass proved, replacing the
// one tracked for an earlier owner. An owner that cannot be opened (exited, its
// PID reused, or no descriptor left) is not tracked, and the earlier reference
// stays: it is let go only once that process has exited.
func (st *nameState) remember(store ownership.Store, s *ownership.State) {
	if s == nil || s.StoppedAt != nil || (st.tracked != nil && st.tracked.state.OwnerID == s.OwnerID) {
		return
	}
	proc, err := store.Reference(*s)
	if err != nil {
		return
	}
	st.forget()
	st.tracked = &trackedOwner{state: *s, proc: proc}
}

// dropExited lets go of a tracked owner once it has provably exited.
func (st *nameState) dropExited() {
	if st.tracked != nil {
		if exited, err := st.tracked.proc.Exited(); exited && err == nil {
			st.forget()
		}
	}
}

func (st *nameState) forget() {
	if st.tracked != nil {
		_ = st.tracked.proc.Close()
		st.tracked = nil
	}
}

// entry is the owner this name keeps a reference to, for held.json.
func (st *nameState) entry(boot func() ownership.BootFacts) *TrackedOwner {
	if st.tracked == nil {
		return nil
	}
	s := st.tracked.state
	// A process kept by a live reference runs in this boot.
	return &TrackedOwner{PID: s.PID, Incarnation: s.Incarnation, OwnerID: s.OwnerID, BootID: boot().ID}
}

// seedTracked tracks the owners that the last reconciler tracked (held.json),
// once, before this one decides anything: an owner whose record vanished
// under that one keeps this one from starting a second. Without a
// held.json (a reconciler from before it existed), status.json's heldOwner
// entries are read instead. It runs under the pass lock (every caller of
// Reconcile and of the operator commands holds it), so no other one-shot
// reconciler is midway through its pass.
func (r *Reconciler) seedTracked() {
	r.seed.Do(func() {
		owners, savedAt, err := r.readTracked()
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				// Unreadable safety state: nothing is trusted from it (the
				// kernel-held name locks still keep out a second owner), and
				// it is left exactly as it is, never overwritten.
				r.log.Error(err, "held owners not read; the file is left as it is")
				r.trackedMu.Lock()
				r.trackedBroken = true
				r.trackedMu.Unlock()
			}
			return
		}
		boot := r.store.Boot()
		for name, h := range owners {
			// One tracked before a reboot is dead, whatever now has its pid and
			// start ticks; one without a boot id is trusted only if the file
			// was written in this boot.
			if h.PID > 0 && h.Incarnation != "" && sameBoot(h.BootID, boot, savedAt) {
				st := r.state(name)
				st.remember(r.store, &ownership.State{PID: h.PID, Incarnation: h.Incarnation, OwnerID: h.OwnerID})
				if e := st.entry(func() ownership.BootFacts { return boot }); e != nil {
					r.trackedMu.Lock()
					r.tracked[name] = *e
					r.trackedMu.Unlock()
				}
			}
		}
	})
}

// readTracked reads held.json, or, without one, the heldOwner entries of
// status.json that reconcilers before held.json wrote; bad names are
// reported as problems.
func (r *Reconciler) readTracked() (map[string]TrackedOwner, time.Time, error) {
	owners, savedAt, bad, err := readTracked(r.opts.AgentDir)
	if errors.Is(err, os.ErrNotExist) {
		prev, serr := r.readStatus()
		if serr != nil {
			return nil, time.Time{}, serr
		}
		owners = map[string]TrackedOwner{}
		for _, s := range prev.Daemons {
			if s.TrackedOwner != nil {
				owners[s.Name] = *s.TrackedOwner
			}
		}
		return owners, prev.ObservedAt.Time, nil
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	r.report(bad)
	return owners, savedAt, nil
}

// trackedAlive returns the owner a name holds a reference to if it is still
// alive, for the operator commands.
func (r *Reconciler) trackedAlive(name string) *ownership.State {
	st := r.state(name)
	if st.tracked == nil {
		return nil
	}
	if exited, err := st.tracked.proc.Exited(); exited && err == nil {
		return nil
	}
	return &st.tracked.state
}

// sameBoot tells whether something saved with boot id saved (at time at)
// belongs to the current boot, whose id is current ("" when unknown).
func sameBoot(saved string, current ownership.BootFacts, at time.Time) bool {
	if saved != "" && current.ID != "" {
		return saved == current.ID
	}
	return current.TimeKnown && at.After(current.Time)
}
