package main

import (
	"fmt"
	"strings"

	"gjc.dev/reconciler/pkg/reconcile"
)

// afterFailure is what a failed command adds to its message: why, from
// the record (the daemon's transportError, unless the message says it
// already), and what keeps running now. before is the name's status when
// the command began, after its status at the end; either may be nil.
func afterFailure(message string, before, after *reconcile.DaemonStatus) []string {
	now := after
	if now == nil {
		now = before
	}
	if now == nil {
		return nil
	}
	var out []string
	if te := now.TransportError; te != "" && !strings.Contains(message, te) {
		out = append(out, fmt.Sprintf("%s's transport: %s", now.Name, te))
	}
	return append(out, runsNow(before, now))
}

// runsNow says which process of the name runs now: the one that ran
// before the command, a new one, or none.
func runsNow(before, now *reconcile.DaemonStatus) string {
	switch {
	case now.PID == 0:
		return fmt.Sprintf("no %s daemon runs now", now.Name)
	case before != nil && before.PID == now.PID && before.OwnerID == now.OwnerID:
		return fmt.Sprintf("the old %s daemon (pid %d) keeps running", now.Name, now.PID)
	case now.TransportError != "":
		return fmt.Sprintf("%s daemon (pid %d) keeps running and retrying its connection", now.Name, now.PID)
	}
	return fmt.Sprintf("%s daemon (pid %d) keeps running", now.Name, now.PID)
}

// onceFailures are --once's lines for what did not converge: each reason,
// and under a daemon's, why from its record and what runs.
func onceFailures(p reconcile.PassResult) []string {
	details := map[string][]string{}
	for _, d := range p.Status.Daemons {
		// An unseen daemon's record says nothing this pass can vouch for.
		if !d.Converged && d.Phase != reconcile.PhaseUnmanaged && d.Reason != reconcile.ReasonCannotExamine {
			details[fmt.Sprintf("%s: %s: %s", d.Name, d.Reason, d.Message)] = afterFailure(d.Message, nil, &d)
		}
	}
	var out []string
	for _, reason := range p.Reasons {
		out = append(out, "not converged: "+reason)
		for _, l := range details[reason] {
			out = append(out, "  "+l)
		}
	}
	return out
}
