package main

import (
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

func TestOnceSummary(t *testing.T) {
	st := func(phases ...reconcile.Phase) *reconcile.Status {
		s := &reconcile.Status{}
		for _, p := range phases {
			s.Daemons = append(s.Daemons, reconcile.DaemonStatus{Phase: p})
		}
		return s
	}
	const (
		run  = reconcile.PhaseRunning
		held = reconcile.PhaseHeld
		stop = reconcile.PhaseStopped
		unm  = reconcile.PhaseUnmanaged
	)
	for _, c := range []struct {
		st   *reconcile.Status
		want string
	}{
		{st(), "converged: no daemons"},
		{st(run), "converged: 1 daemon running"},
		{st(run, run), "converged: 2 daemons running"},
		{st(held), "converged: 1 daemon held"},
		{st(stop, stop), "converged: 2 daemons stopped"},
		{st(held, run), "converged: 2 daemons: 1 running, 1 held"},
		{st(held, stop, run, run), "converged: 4 daemons: 2 running, 1 stopped, 1 held"},
		{st(run, unm), "converged: 1 daemon running; 1 unmanaged daemon left alone"},
		{st(unm, unm), "converged: no daemons; 2 unmanaged daemons left alone"},
	} {
		if got := onceSummary(c.st); got != c.want {
			t.Errorf("onceSummary(%v) = %q, want %q", c.st.Daemons, got, c.want)
		}
	}
}
