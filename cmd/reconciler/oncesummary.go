package main

import (
	"fmt"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/reconcile"
)

// onceSummary is --once's line for a converged pass: how many daemons, and
// in which phase, so that a pass where nothing runs (every daemon held or
// stopped) never reads as bots at work. Unmanaged names are counted apart:
// they are left alone, not converged.
func onceSummary(st *reconcile.Status) string {
	var order []reconcile.Phase
	count := map[reconcile.Phase]int{}
	total, unmanaged := 0, 0
	for _, d := range st.Daemons {
		if d.Phase == reconcile.PhaseUnmanaged {
			unmanaged++
			continue
		}
		if count[d.Phase] == 0 {
			order = append(order, d.Phase)
		}
		count[d.Phase]++
		total++
	}
	var s string
	switch len(order) {
	case 0:
		s = "converged: no daemons"
	case 1:
		s = fmt.Sprintf("converged: %s %s", plural(total, "daemon"), strings.ToLower(string(order[0])))
	default:
		slices.SortStableFunc(order, func(a, b reconcile.Phase) int { return phaseRank(a) - phaseRank(b) })
		parts := make([]string, 0, len(order))
		for _, p := range order {
			parts = append(parts, fmt.Sprintf("%d %s", count[p], strings.ToLower(string(p))))
		}
		s = fmt.Sprintf("converged: %s: %s", plural(total, "daemon"), strings.Join(parts, ", "))
	}
	if unmanaged > 0 {
		s += fmt.Sprintf("; %s left alone", plural(unmanaged, "unmanaged daemon"))
	}
	return s
}

// phaseRank puts running first, then stopped and held, then any other, as
// a person reads them: what works, then what was kept off.
func phaseRank(p reconcile.Phase) int {
	switch p {
	case reconcile.PhaseRunning:
		return 0
	case reconcile.PhaseStopped:
		return 1
	case reconcile.PhaseHeld:
		return 2
	}
	return 3
}
