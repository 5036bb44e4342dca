package reconcile

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/spec"
)

// Problem is an entry of a file the reconciler read and will not act on: a
// name that could not be a daemon's. Used as a path, "x/../d1" or "d1/"
// would be d1's dir, and pruning it would stop a desired daemon; so it is
// never pruned, signalled or joined into a path, only reported.
type Problem struct {
	File    string `json:"file"`
	Entry   string `json:"entry"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: entry %q: %s; ignored", p.File, p.Entry, p.Message)
}

// checkName validates a name read from a file exactly as the spec validates
// metadata.name.
func checkName(name string) error {
	if msgs := spec.NameErrors(name); len(msgs) > 0 {
		return errors.New("not a valid daemon name: " + strings.Join(msgs, "; "))
	}
	return nil
}

// badName is the problem with a name read from file, nil if it is valid.
func badName(file, name string) *Problem {
	if err := checkName(name); err != nil {
		return &Problem{File: file, Entry: name, Message: err.Error()}
	}
	return nil
}

// sortProblems orders problems and drops repeats (one file read twice).
func sortProblems(ps []Problem) []Problem {
	slices.SortFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Entry, b.Entry), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(ps)
}

// readStatus reads status.json for this reconciler's own use. The entries
// it leaves out are logged once and reported by the next status written.
func (r *Reconciler) readStatus() (*Status, error) {
	s, bad, err := readStatus(r.opts.AgentDir)
	if err != nil {
		return nil, err
	}
	r.report(bad)
	return s, nil
}

// report logs, once each, entries of a file that were left out for their
// names, and keeps them for the next status.
func (r *Reconciler) report(bad []Problem) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range bad {
		if r.noted[p] {
			continue
		}
		r.noted[p] = true
		r.pending = append(r.pending, p)
		r.log.Error(errors.New(p.Message), "entry ignored: it is never signalled or used as a path", "file", p.File, "entry", p.Entry)
	}
}

// takeProblems is what the next status reports: the inventory's bad
// entries as the file now holds them, and the bad entries of status.json
// read since the last report (a written status no longer holds them).
func (r *Reconciler) takeProblems() []Problem {
	ps := r.inv.problems()
	r.mu.Lock()
	ps = append(ps, r.pending...)
	r.pending = nil
	r.mu.Unlock()
	return sortProblems(ps)
}
