package reconcile

import (
	"maps"
	"slices"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// View is `reconciler status`: status.json merged with a live look at every
// name's record, so a daemon that died since the last pass shows as such.
// It reads only; it writes, creates and signals nothing.
func View(store ownership.Store, files Files, agentDir string, res *spec.Result, only []string) (*Status, error) {
	saved, err := ReadStatus(files, agentDir)
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
	out := newStatus(saved.ObservedAt.Time, res)
	out.Problems = saved.Problems
	for _, n := range names {
		if len(only) > 0 && !slices.Contains(only, n) {
			continue
		}
		out.Daemons = append(out.Daemons, live(byName[n], n, res.Lookup(n), store))
	}
	return out, nil
}

// live refreshes one saved status with what the record and the kernel say now.
func live(s DaemonStatus, name string, d *spec.Daemon, store ownership.Store) DaemonStatus {
	s.Name = name
	if d != nil {
		s.Provider, s.DesiredState = string(d.Config.Provider), string(d.Config.State)
		g := d.Config.Generation
		s.DesiredGeneration = &g
	}
	obs := store.Observe(name)
	rec := obs.Record
	if rec.State == nil {
		if s.Phase == "" {
			s.Phase = PhaseStopped
		}
		return s
	}
	st := rec.State
	s.OwnerID, s.Generation = st.OwnerID, st.Generation
	if s.Provider == "" {
		s.Provider = st.Kind
	}
	desired := ownership.Desired{Kind: st.Kind, Identity: st.Identity, Generation: generationOf(rec)}
	if d != nil {
		desired = desiredOf(d)
	}
	cls := obs.Classify(desired)
	switch {
	case cls.Class == ownership.ClassStopped || cls.Class == ownership.ClassAbsent:
		s.PID = 0
		if s.Phase == PhaseRunning || s.Phase == PhaseStarting || s.Phase == "" {
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
	if s.Phase == "" {
		s.Phase = PhaseUnmanaged
	}
	s.Converged = s.Converged && cls.Health == ownership.HealthHealthy
	return s
}
