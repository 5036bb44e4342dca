// Package fsstore is the ownership backend of one machine: records, locks
// and control requests in files under an agent dir, kernel-held name locks,
// fenced signals and the stop ladder. It proves every process it acts on
// (pkg/platform) and refuses what it cannot prove; the reconciler only
// decides.
package fsstore

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Options configure a Store.
type Options struct {
	// Probe answers liveness, incarnation and command lines; the system's
	// when nil.
	Probe ownership.Probe
	Log   logr.Logger
}

// Store is ownership.Store over one agent dir.
type Store struct {
	agentDir string
	probe    ownership.Probe
	log      logr.Logger
}

var _ ownership.Store = (*Store)(nil)

// New returns the store of agentDir's daemons. It touches nothing until asked.
func New(agentDir string, opts Options) *Store {
	if opts.Probe == nil {
		opts.Probe = ownership.SystemProbe()
	}
	return &Store{agentDir: agentDir, probe: opts.Probe, log: opts.Log}
}

func (s *Store) paths(name string) ownership.Paths { return ownership.PathsFor(s.agentDir, name) }

// Observe reads name's state.json and the facts about the process it names.
func (s *Store) Observe(name string) ownership.Observation {
	rec := ownership.ReadState(s.paths(name))
	return ownership.Observation{Record: rec, Facts: ownership.GatherFacts(s.probe, rec)}
}

// Prepare creates name's daemon dir, and checks the whole path private.
func (s *Store) Prepare(name string) error { return ownership.EnsureDir(s.paths(name)) }

// SpawnBlocked looks first to the kernel, which knows of a live daemon of
// this name even when no file does (sdk/ removed or restored under it),
// then to the lock files, in the order Acquire meets them.
func (s *Store) SpawnBlocked(name string) error {
	p := s.paths(name)
	holder, err := ownership.NameLockHolder(p)
	switch {
	case err != nil:
		// The lock files are still judged, and Acquire takes the name
		// locks itself: a holder it meets there makes it exit 3.
		s.log.Error(err, "looking up the name lock", "name", name)
	case holder != nil:
		return holder
	}
	return ownership.SpawnObstacle(p, s.probe)
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
	l, err := acquirePassLock(ctx, s.agentDir)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}

// Boot is this boot's time and ID, as far as they can be read.
func (s *Store) Boot() ownership.BootFacts { return ownership.GatherBoot(s.probe) }

func (s *Store) Now() time.Time { return s.probe.Now() }
