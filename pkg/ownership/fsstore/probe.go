package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// Probe is what classification asks of the machine: every fact a verdict
// needs, as values. SystemProbe answers from the kernel; tests answer from
// a table. One interface, implemented in full by both: no method is looked
// for behind the caller's back.
type Probe interface {
	// Observe reads a PID's liveness and incarnation in one look (see
	// platform.Observe). An error means liveness is unknown, never dead.
	Observe(pid int) (alive bool, incarnation string, err error)
	// Argv: see platform.ProcessArgv. It is how a live process is proved
	// to be the daemon a record names, not just a process with its PID.
	Argv(pid int, incarnation string) ([]string, error)
	// BootTime and BootID identify this boot: an incarnation (a start time
	// since boot) is only unique within one. BootID is "" with an error
	// where the machine has none.
	BootTime() (time.Time, error)
	BootID() (string, error)
	Now() time.Time
}

// SystemProbe returns the Probe backed by pkg/platform and the wall clock.
func SystemProbe() Probe { return systemProbe{} }

type systemProbe struct{}

func (systemProbe) Observe(pid int) (bool, string, error) { return platform.Observe(pid) }
func (systemProbe) Argv(pid int, incarnation string) ([]string, error) {
	return platform.ProcessArgv(pid, incarnation)
}
func (systemProbe) BootTime() (time.Time, error) { return platform.BootTime() }
func (systemProbe) BootID() (string, error)      { return platform.BootID() }
func (systemProbe) Now() time.Time               { return time.Now() }

// currentBootID is the boot ID to record, or "" when the probe has none.
func currentBootID(probe Probe) string {
	if id, err := probe.BootID(); err == nil {
		return id
	}
	return ""
}

// probeOwner is probePID for a record or lock that claims c: a live process
// with the recorded incarnation is the owner (equal) only once its command
// line proves it is c's daemon. One that proves another is notDaemon; one
// that cannot be read is unexaminable, failing closed (equal false, alive).
func probeOwner(probe Probe, pid int, recorded string, c ownership.DaemonClaim) ownership.ProcessFacts {
	f := probePID(probe, pid, recorded)
	if !f.Equal {
		return f
	}
	argv, err := probe.Argv(pid, recorded)
	switch {
	case errors.Is(err, platform.ErrIncarnationMismatch):
		// Exited between the looks, and the PID reused.
		return ownership.ProcessFacts{Alive: true, Differs: true, Err: err}
	case errors.Is(err, platform.ErrProcessGone), errors.Is(err, platform.ErrInvalidPID):
		return ownership.ProcessFacts{}
	case errors.Is(err, platform.ErrArgvTooLong):
		// Ours are a few hundred bytes, but a long prefix (an interpreter's
		// flags) is not proof of another process.
		f.Equal, f.Unexaminable = false, true
		f.Err = &ownership.UnprovenDaemonError{PID: pid, Why: "its command line is too long to judge"}
		return f
	case err != nil:
		f.Equal, f.Unexaminable = false, true
		f.Err = fmt.Errorf("its command line cannot be read: %w", err)
		return f
	}
	var unproven *ownership.UnprovenDaemonError
	switch err := VerifyDaemonArgv(pid, argv, c); {
	case errors.As(err, &f.NotDaemon):
		f.Equal = false
	case errors.As(err, &unproven):
		f.Equal, f.Unexaminable = false, true
		f.Err = err
	}
	return f
}

// probePID establishes the facts about pid in one look, failing closed:
// only a clear answer proves death or reuse. A PID no process can have
// (above the kernel's maximum) is dead, as kill(2) would say.
func probePID(probe Probe, pid int, recorded string) ownership.ProcessFacts {
	alive, cur, err := probe.Observe(pid)
	switch {
	case errors.Is(err, platform.ErrInvalidPID):
		return ownership.ProcessFacts{}
	case err != nil:
		// Exists, or liveness unknown: never treated as dead.
		return ownership.ProcessFacts{Alive: true, Err: err}
	case !alive:
		return ownership.ProcessFacts{}
	}
	return liveFacts(cur, recorded)
}

// liveFacts compares a live PID's current incarnation with the recorded one.
func liveFacts(cur, recorded string) ownership.ProcessFacts {
	if !incarnation.Valid(cur) {
		return ownership.ProcessFacts{Alive: true, Current: cur, Err: platform.ErrInvalidIncarnation}
	}
	return ownership.ProcessFacts{
		Alive:   true,
		Current: cur,
		Equal:   cur == recorded,
		Differs: cur != recorded && incarnation.Valid(recorded),
	}
}

// GatherFacts asks probe, in one look, everything Classify needs about rec:
// for a record that names an owner, its process (judged against the claim
// the record makes, so a copied record proves nothing) and this boot.
func GatherFacts(probe Probe, rec ownership.Record) ownership.Facts {
	f := ownership.Facts{Now: probe.Now()}
	if s := rec.State; s != nil && rec.Malformed == nil {
		if rec.Legacy {
			f.Process = probePID(probe, s.PID, s.Incarnation)
		} else {
			f.Process = probeOwner(probe, s.PID, s.Incarnation, ownership.ClaimOf(rec.Paths, s.OwnerID))
		}
		f.Boot = GatherBoot(probe)
	}
	return f
}

// GatherBoot reads what identifies this boot.
func GatherBoot(probe Probe) ownership.BootFacts {
	t, err := probe.BootTime()
	return ownership.BootFacts{Time: t, TimeKnown: err == nil, TimeErr: err, ID: currentBootID(probe)}
}
