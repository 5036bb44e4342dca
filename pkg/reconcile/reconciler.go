package reconcile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// Options configure a Reconciler.
type Options struct {
	AgentDir string
	// Executable is the reconciler binary that `daemon` runs from.
	Executable string
	Log        logr.Logger
	// Store proves and acts on the owners of names (fsstore.New on one
	// machine). The reconciler's own files (status, inventory, and the
	// holds on one machine) it keeps itself, with pkg/atomicfile.
	Store ownership.Store
	// Holds keep the operator's holds where Store keeps its records: a
	// fleet's etcd, so that a stop anywhere holds the name everywhere;
	// nil: this machine's holds.json (FileHolds).
	Holds Holds
	// DaemonHeartbeat, when set, is passed to spawned daemons (tests).
	DaemonHeartbeat time.Duration
	// DaemonArgs are more flags for spawned daemons: where they hold their
	// names when that is not this machine's files (a fleet's etcd).
	DaemonArgs []string
	// DaemonSecrets go to spawned daemons on their stdin, after the
	// config: what they need that no flag or variable may carry.
	DaemonSecrets daemonproto.Secrets
	// ChildExited is called when a daemon this process spawned exits.
	ChildExited func(name string)
	// Hooks are told what the reconciler and its loop do (metrics).
	Hooks Hooks
	// Progress, when set, hears what each wait is waiting for (a command
	// run by a person shows it); nil for the loop, which logs instead.
	Progress ProgressFunc
	// Events, when set, keeps the event history (pkg/events).
	Events EventRecorder
}

// Reconciler observes, decides and acts for one name at a time. Reconcile
// may run for different names concurrently, never twice for one name.
type Reconciler struct {
	opts  Options
	log   logr.Logger
	store ownership.Store
	holds Holds // the operator's, kept where the store keeps its records
	inv   *inventory
	watch *dirwatch.Watch // the spec sources' dirs; the store watches its own
	warm  *standbys       // the loop's warm replacements; nil: every spawn starts cold

	seed    sync.Once // the held owners of status.json, read under the pass lock
	mu      sync.Mutex
	names   map[string]*nameState
	secrets []string // every fromEnv variable of the current spec
	// pending are the bad entries of status.json this reconciler read and
	// has not reported yet; noted, every one it has logged.
	pending []Problem
	noted   map[Problem]bool

	// rewrite serializes this process's read-modify-writes of holds.json
	// and status.json: commands on several names run at once, and the pass
	// lock does not exclude this process's own goroutines.
	rewrite sync.Mutex

	trackedMu    sync.Mutex              // guards tracked, savedTracked, trackedSaved; serializes saves
	tracked      map[string]TrackedOwner // by name, as each name's worker last reported
	savedTracked map[string]TrackedOwner // what the last save wrote
	trackedSaved bool
	// trackedBroken: held.json could not be read; it is never overwritten.
	trackedBroken bool
}

// nameState is what the reconciler remembers of a name between passes.
type nameState struct {
	crash crashLoop
	// expecting is set while a live owner is believed to run; a stopped record
	// seen afterwards is an unexpected exit.
	expecting string // ownerId
	// termTimedOut is the owner that outlasted a stop without --force:
	// see memory.termTimedOut.
	termTimedOut string
	restarts     int
	child        *child
	tracked      *trackedOwner
	status       DaemonStatus
}

// New prepares a reconciler for an agent dir, creating its private state dir.
func New(opts Options) (*Reconciler, error) {
	if opts.Store == nil {
		return nil, errors.New("reconcile.New: Options.Store is required")
	}
	if opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the reconciler binary: %w", err)
		}
		opts.Executable = exe
	}
	if err := ensurePrivateTree(opts.AgentDir); err != nil {
		return nil, err
	}
	inv, err := loadInventory(InventoryPath(opts.AgentDir), opts.Log)
	if err != nil {
		return nil, err
	}
	w, err := dirwatch.New()
	if err != nil {
		return nil, fmt.Errorf("creating file watch: %w", err)
	}
	r := &Reconciler{opts: opts, log: opts.Log, store: opts.Store, holds: opts.OperatorHolds(), inv: inv, watch: w,
		names: map[string]*nameState{}, noted: map[Problem]bool{}, tracked: map[string]TrackedOwner{}}
	if prev, err := r.readStatus(); err == nil {
		// Carry conditions over, so lastTransitionTime survives a restart.
		for _, s := range prev.Daemons {
			r.state(s.Name).status = s
		}
	}
	return r, nil
}

// Close stops the file watch and drops the process references it holds.
// Daemons keep running. Call it only once every Reconcile has returned:
// a name's state belongs to its running Reconcile.
func (r *Reconciler) Close() error {
	r.mu.Lock()
	for _, st := range r.names {
		st.forget()
	}
	r.mu.Unlock()
	err := r.watch.Close()
	if serr := r.store.Close(); err == nil {
		err = serr
	}
	return err
}

func (r *Reconciler) state(name string) *nameState {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.names[name]
	if !ok {
		s = &nameState{}
		r.names[name] = s
	}
	return s
}

func (r *Reconciler) now() time.Time { return r.store.Now() }

// observe is one look at name in the store, judged against desired.
func (r *Reconciler) observe(name string, desired ownership.Desired) (ownership.Record, ownership.Classification) {
	obs := r.store.Observe(name)
	return obs.Record, obs.Classify(desired)
}

// childExited logs how a daemon this process spawned ended (its parent is
// the only one told) and tells the loop.
func (r *Reconciler) childExited(name string, c *child) {
	r.log.Info("daemon exited", "name", name, "pid", c.pid, "ownerId", c.ownerID, "code", c.exit.Code, "signal", c.exit.Signal, "how", c.exit.String())
	if r.opts.ChildExited != nil {
		r.opts.ChildExited(name)
	}
}

func (r *Reconciler) secretVars() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.secrets
}

// setDesired records the secret variables of a spec, which no daemon inherits.
func (r *Reconciler) setDesired(res *spec.Result) {
	var vars []string
	for _, d := range res.Daemons {
		vars = append(vars, d.EnvNames...)
	}
	r.mu.Lock()
	r.secrets = vars
	r.mu.Unlock()
}

// Names is every name a pass looks at: desired, inventory, and every daemon
// dir on disk (those become Unmanaged unless one of the others claims them),
// and the names pruned before, so a removed dir is seen gone.
func (r *Reconciler) Names(res *spec.Result) []string {
	r.inv.refresh()
	names := append(res.Names(), r.inv.list()...)
	names = append(names, r.inv.removedList()...)
	names = append(names, daemonDirNames(r.opts.AgentDir)...)
	slices.Sort(names)
	return slices.Compact(names)
}

// daemonDirNames lists the names that have a daemon dir on disk.
func daemonDirNames(agentDir string) []string {
	entries, err := os.ReadDir(daemonsDir(agentDir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// ensurePrivateTree creates the reconciler's own dirs 0700, refusing ones
// that are symlinks, foreign or group/world writable.
func ensurePrivateTree(agentDir string) error {
	for _, dir := range []string{agentDir, agentDir + "/sdk", controlDir(agentDir), daemonsDir(agentDir)} {
		if err := atomicfile.CheckPrivateDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// Outcome is the result of reconciling one name.
type Outcome struct {
	Status DaemonStatus
	// Owner is the live owner last observed, if any: the loop watches its exit.
	Owner *ownership.State
	// RequeueAfter, when positive, asks for another look this much later.
	RequeueAfter time.Duration
	// Unseen: the name's holder runs where this reconciler cannot see it
	// (ReasonCannotExamine); Status is this reconciler's blindness, not
	// the daemon's state.
	Unseen bool
}

// Reconcile makes one name match its desired object (nil: not desired).
func (r *Reconciler) Reconcile(ctx context.Context, name string, d *spec.Daemon, res *spec.Result) Outcome {
	start := time.Now()
	r.seedTracked()
	st := r.state(name)
	a := &attempt{r: r, ctx: ctx, name: name, d: d, res: res, st: st, paths: ownership.PathsFor(r.opts.AgentDir, name)}
	a.hold, a.holdsErr = r.holds.Hold(name)
	r.mu.Lock()
	// A copy: SetStatusCondition edits in place, and snapshot reads the old one.
	conditions := slices.Clone(st.status.Conditions)
	r.mu.Unlock()
	a.status = DaemonStatus{Name: name, Restarts: st.restarts, Conditions: conditions, LastExit: st.status.LastExit}
	if d != nil {
		a.status.Provider = string(d.Config.Provider)
		a.status.DesiredState = string(d.Config.State)
		a.status.DesiredGeneration = d.Config.Generation.Opt()
	}
	a.run()
	st.remember(r.store, a.owner)
	st.dropExited()
	// Saved in status.json, so that the next reconciler (a restart, --once,
	// the loop started again) holds it too.
	a.status.TrackedOwner = st.entry(r.store.Boot)
	if !a.unseen {
		// What a reconciler that cannot see the daemon holds is nothing,
		// not news for the next one.
		r.saveTracked(name, a.status.TrackedOwner)
	}
	a.status.Restarts = st.restarts
	a.setConditions()
	r.mu.Lock()
	prev := st.status
	st.status = a.status
	if a.leaves {
		// Out of the status from now on: snapshot lists no phase-less name.
		st.status = DaemonStatus{}
	}
	r.mu.Unlock()
	if a.leaves && a.status.Phase == "" {
		if prev.Phase != "" {
			r.log.Info("daemon left the status", "name", name, "was", prev.Phase)
			r.event(name, EventNormal, EventRemoved, fmt.Sprintf("not in the spec, pruned by this reconciler, and nothing of it runs: left out of the status (was %s)", prev.Phase))
		}
	} else if prev.Phase != a.status.Phase || prev.Reason != a.status.Reason {
		// Transitions only: a steady name logs nothing, and an operator
		// reading the journal sees every crash loop and refusal begin.
		kv := []any{"name", name, "phase", a.status.Phase, "was", prev.Phase, "reason", a.status.Reason, "message", a.status.Message}
		if phaseIsError(a.status.Phase, a.degraded) {
			r.log.Error(errors.New(a.status.Reason), "daemon phase", kv...)
		} else {
			r.log.Info("daemon phase", kv...)
		}
		if !a.unseen {
			r.phaseEvent(prev, a.status, a.degraded)
		}
	}
	out := Outcome{Status: a.status, RequeueAfter: a.requeue, Owner: a.owner, Unseen: a.unseen}
	r.opts.Hooks.reconciled(name, out, start)
	return out
}

// phaseIsError reports whether a daemon's new phase is logged at error
// level: a refusal, a crash loop or anything that degrades it needs a
// person, and `journalctl -p err` is where one looks.
func phaseIsError(p Phase, degraded bool) bool {
	return degraded || p == PhaseRefused || p == PhaseCrashLoopBackOff
}
