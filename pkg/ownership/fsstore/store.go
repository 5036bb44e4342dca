package fsstore

import (
	"context"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/internal/agentdir"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Options configure a Store.
type Options struct {
	// Probe answers liveness, incarnation and command lines; the system's
	// when nil.
	Probe Probe
	Log   logr.Logger
}

// Store is ownership.Store over one agent dir.
type Store struct {
	agentDir string
	probe    Probe
	log      logr.Logger

	watchOnce sync.Once
	watch     atomic.Pointer[dirwatch.Watch] // nil until the first Watch, or when it failed
	watchErr  error
}

var (
	_ ownership.Store    = (*Store)(nil)
	_ ownership.Acquirer = (*Store)(nil)
	_ ownership.Claim    = (*Owner)(nil)
)

// New returns the store of agentDir's daemons. It touches nothing until asked.
func New(agentDir string, opts Options) *Store {
	if opts.Probe == nil {
		opts.Probe = SystemProbe()
	}
	return &Store{agentDir: agentDir, probe: opts.Probe, log: opts.Log}
}

func (s *Store) paths(name string) ownership.Paths { return ownership.PathsFor(s.agentDir, name) }

// Observe reads name's state.json and the facts about the process it names.
// A watched dir is watched again first: a removed and re-created dir (an
// operator's rm -rf, a restore) can lose its inotify watch without a word,
// and this makes sure it has one again by the next look at the latest.
func (s *Store) Observe(name string) ownership.Observation {
	p := s.paths(name)
	if w := s.watch.Load(); w != nil {
		w.Rewatch(p.Dir)
	}
	rec := ReadState(p)
	return ownership.Observation{Record: rec, Facts: GatherFacts(s.probe, rec)}
}

// Acquire takes name for a daemon of this process: its private dir first,
// then the locks and the record (see the package function Acquire), judged
// with the store's probe.
func (s *Store) Acquire(name string, req ownership.AcquireRequest) (ownership.Claim, error) {
	p := s.paths(name)
	if err := EnsureDir(p); err != nil {
		return nil, err
	}
	o, err := acquire(p, req, s.probe, defaultEnv())
	if err != nil {
		return nil, marked(err)
	}
	return o, nil
}

// Watch subscribes to changes of name's state.json and control.json,
// through one inotify instance for the whole store.
func (s *Store) Watch(name string) (<-chan struct{}, func(), error) {
	s.watchOnce.Do(func() {
		w, err := dirwatch.New()
		s.watch.Store(w)
		s.watchErr = err
	})
	w := s.watch.Load()
	if w == nil {
		return nil, nil, fmt.Errorf("watching daemon dirs: %w", s.watchErr)
	}
	// A missing daemon dir is watched through its parent, which must
	// exist: made here as a reconciler's start makes it (private, 0700).
	p := s.paths(name)
	levels, err := p.Levels()
	if err != nil {
		return nil, nil, err
	}
	for _, dir := range levels[:2] {
		if err := agentdir.CheckPrivate(dir); err != nil {
			return nil, nil, fmt.Errorf("watching %s: %w", p.Dir, err)
		}
	}
	return w.Subscribe(p.Dir, recordFiles)
}

// recordFiles accepts the files whose changes can change a decision: the
// record and a control request, and the lock files, which only an
// acquire writes and only an operator's fix of a refused lock removes,
// so the loop looks again at once after the fix.
func recordFiles(base string) bool {
	switch base {
	case ownership.StateFile, ownership.ControlFile, ownership.LockFile, ownership.ReclaimFile:
		return true
	}
	return false
}

// Close ends the store's watch, if it started one.
func (s *Store) Close() error {
	s.watchOnce.Do(func() { s.watchErr = errors.New("store closed") }) // no watch starts after Close
	if w := s.watch.Load(); w != nil {
		return w.Close()
	}
	return nil
}

// Prepare creates name's daemon dir, and checks the whole path private.
func (s *Store) Prepare(name string) error { return marked(EnsureDir(s.paths(name))) }

// SpawnBlocked looks first to the kernel, which knows of a live daemon of
// this name even when no file does (sdk/ removed or restored under it),
// then to the lock files, in the order Acquire meets them.
func (s *Store) SpawnBlocked(name string) error {
	p := s.paths(name)
	holder, err := NameLockHolder(p)
	switch {
	case err != nil:
		// The lock files are still judged, and Acquire takes the name
		// locks itself: a holder it meets there makes it exit 3.
		s.log.Error(err, "looking up the name lock", "name", name)
	case holder != nil:
		return holder
	}
	return marked(SpawnObstacle(p, s.probe))
}

// Reference opens the owner's process by a reference (a pidfd on Linux)
// that proves its incarnation for as long as it is held.
func (s *Store) Reference(st ownership.State) (ownership.OwnerRef, error) {
	proc, err := platform.OpenProcess(st.PID, st.Incarnation)
	if err != nil {
		return nil, fmt.Errorf("owner %s (pid %d): %w", st.OwnerID, st.PID, err)
	}
	return proc, nil
}

// LockPasses takes the agent dir's pass lock, waiting up to ctx's deadline.
func (s *Store) LockPasses(ctx context.Context) (func(), error) {
	l, err := agentdir.TakePassLock(ctx, s.agentDir)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

// Boot is this boot's time and ID, as far as they can be read.
func (s *Store) Boot() ownership.BootFacts { return GatherBoot(s.probe) }

func (s *Store) Now() time.Time { return s.probe.Now() }

// Machine is "": one machine's files hold no elections.
func (s *Store) Machine() string { return "" }

// Leader is "": without elections every name is led here.
func (s *Store) Leader(string) (string, error) { return "", nil }

// ReleaseReaped implements ownership.Store: a name's locks die with its
// process, so a reaped owner holds nothing.
func (s *Store) ReleaseReaped(string, string, int) error { return nil }

// LeaseTTL is 0: a name's lock dies with its owner's process.
func (s *Store) LeaseTTL() time.Duration { return 0 }
