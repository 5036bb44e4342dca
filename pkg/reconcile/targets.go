package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// Actions of the operator's commands that take names.
const (
	ActionStop    = "stop"
	ActionStart   = "start"
	ActionRestart = "restart"
)

// Selection is what an operator's command names: some names, or all of
// them (--all). What "all" is depends on the action, see Targets.
type Selection struct {
	Names []string `json:"names,omitempty"`
	All   bool     `json:"all,omitempty"`
}

// UsageError is the caller's mistake, found before anything is touched:
// a name nothing knows, a string that is no daemon name, a selection that
// names nothing. The command line exits 2 on it.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usage(format string, args ...any) error { return &UsageError{msg: fmt.Sprintf(format, args...)} }

// IsUsage reports whether err is (or wraps) a UsageError.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Targets resolves a selection against a spec result and the files of the
// agent dir. A name is known when the spec declares it or it has a daemon
// dir (a name known only by its record can still be stopped). --all is:
//   - for stop, every name this reconciler manages: declared by the spec
//     or in its inventory. A daemon dir no spec declares and the inventory
//     does not list belongs to someone else and is left alone;
//   - for start, every name the spec declares and every held name, so that
//     start --all lets go of every hold stop --all made;
//   - for restart, refused: a restart takes names.
func Targets(holds Holds, agentDir, action string, sel Selection, res *spec.Result) ([]string, error) {
	known := func(name string) bool {
		if res.Lookup(name) != nil {
			return true
		}
		_, err := os.Lstat(ownership.PathsFor(agentDir, name).Dir)
		return !errors.Is(err, os.ErrNotExist)
	}
	all := func() ([]string, error) {
		names := res.Names()
		switch action {
		case ActionStop:
			managed, _, err := ReadInventory(agentDir, logr.Discard())
			if err != nil {
				return nil, fmt.Errorf("stop --all: %w", err)
			}
			names = append(names, managed...)
		case ActionStart:
			held, err := holds.Holds()
			if err != nil {
				return nil, fmt.Errorf("start --all: %w", err)
			}
			for n := range held {
				names = append(names, n)
			}
		}
		return names, nil
	}
	why := "not in the spec and no daemon dir"
	if !res.Valid() {
		// Acting alone from a shell without the spec's fromEnv tokens, a
		// name the spec declares is missing from what resolves here.
		why = fmt.Sprintf("not in the spec as read here and no daemon dir (the spec is invalid as read here: %d error(s); run reconciler validate)", len(res.Errors))
	}
	return selectTargets(action, sel, known, all, why)
}

// selectTargets is Targets' decision: the names to act on, in the order
// given (each once), or every name of all() sorted; or the usage error,
// saying why for names nothing knows.
func selectTargets(action string, sel Selection, known func(string) bool, all func() ([]string, error), why string) ([]string, error) {
	switch {
	case sel.All && action == ActionRestart:
		return nil, usage("restart takes names, not --all")
	case sel.All && len(sel.Names) > 0:
		return nil, usage("%s: give names or --all, not both", action)
	case sel.All:
		names, err := all()
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		return slices.Compact(names), nil
	case len(sel.Names) == 0 && action == ActionRestart:
		return nil, usage("restart: give at least one NAME")
	case len(sel.Names) == 0:
		return nil, usage("%s: give at least one NAME, or --all", action)
	}
	var out, unknown []string
	for _, n := range sel.Names {
		if msgs := spec.NameErrors(n); len(msgs) > 0 {
			return nil, usage("%q is not a daemon name: %s", n, strings.Join(msgs, "; "))
		}
		if slices.Contains(out, n) || slices.Contains(unknown, n) {
			continue
		}
		if known(n) {
			out = append(out, n)
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, unknownNames(unknown, why)
	}
	return out, nil
}

// unknownNames is the usage error for names nothing knows; why says where
// they were looked for.
func unknownNames(names []string, why string) error {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return usage("unknown daemon %s: %s", quoted[0], why)
	}
	return usage("unknown daemons %s: %s", strings.Join(quoted, ", "), why)
}

// CheckViewNames is status's rule for the names asked for: each must be in
// the view (the spec, the last status or the daemon dirs), or it is a
// usage error; a typo must not read as a stopped daemon.
func CheckViewNames(st *Status, names []string) error {
	var unknown []string
	for _, n := range names {
		if !slices.ContainsFunc(st.Daemons, func(d DaemonStatus) bool { return d.Name == n }) && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return unknownNames(unknown, "not in the spec, the status or the daemon dirs")
	}
	return nil
}

// Operation is one operator command on one name: a method expression of
// Reconciler such as (*Reconciler).Start, or a closure over one.
type Operation func(r *Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) OperateResult

// Operate runs op on each name with the spec result res, the names in
// parallel (one daemon's graceful wait never delays another's), and returns
// the results in the names' order. The caller holds the pass lock, and
// finishes the results with AwaitLeaders once it let go of it.
func (r *Reconciler) Operate(ctx context.Context, names []string, res *spec.Result, op Operation) []OperateResult {
	return eachName(names, func(name string) OperateResult { return op(r, ctx, name, res.Lookup(name), res) })
}

// eachName runs f for every name at once and collects the results in order.
func eachName(names []string, f func(string) OperateResult) []OperateResult {
	out := make([]OperateResult, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { out[i] = f(n) })
	}
	wg.Wait()
	return out
}
