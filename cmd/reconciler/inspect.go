package main

import (
	"time"

	"gjc.dev/reconciler/pkg/reconcile"
)

// lookNames checks the names a read-only command is given: each a valid
// name and known, as for status (the spec, status.json, the daemon dirs),
// or to known (the event history of a name long gone). It returns the
// live look at them, as status shows it: the running loop's, when one
// answers, so a shell without the bots' tokens sees the loop's spec.
func lookNames(look func(names []string) (*reconcile.Status, error), names []string, known func(string) bool) (*reconcile.Status, error) {
	for _, n := range names {
		if err := checkNameArg(n); err != nil {
			return nil, err
		}
	}
	// Every name, not just those asked for: a name known only to the event
	// history is no error, and the look refuses names it does not know.
	st, err := look(nil)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, n := range names {
		if _, ok := statusOf(st, n); !ok && (known == nil || !known(n)) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, unknownNames(st, unknown)
	}
	return st, nil
}

func statusOf(st *reconcile.Status, name string) (reconcile.DaemonStatus, bool) {
	for _, d := range st.Daemons {
		if d.Name == name {
			return d, true
		}
	}
	return reconcile.DaemonStatus{}, false
}

// since is how long ago t was, as kubectl shows ages: 5s, 3m, 2h, 4d.
func since(t, now time.Time) string { return duration(now.Sub(t)) }

// eventTimeLayout is how event times are shown, in the local zone.
const eventTimeLayout = "2006-01-02 15:04:05"
