package ownership

import (
	"errors"
	"fmt"
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

// pidFacts is what the machine says about a recorded PID and incarnation.
type pidFacts struct {
	alive bool // live, or liveness unknown: never treated as dead
	// differs: a live PID whose current incarnation is valid and not the
	// recorded one, which is valid too. The recorded process is proved
	// gone (PID reused). A recorded incarnation without authority
	// ("unavailable") can never be proved different.
	differs bool
	// equal: a live PID whose current incarnation is the recorded one.
	equal bool
	// current is the PID's incarnation now, when read.
	current string
	err     error // why liveness or the incarnation is unknown, if it is
	// notDaemon: the recorded process lives on, but its command line proves
	// it is not the daemon the record or lock claims (a copied record, one
	// naming any other process): as gone as a reused PID for this name.
	notDaemon *NotDaemonError
	// unexaminable: equal incarnation, but the command line could not be
	// read, so it is neither proved this daemon nor another process.
	unexaminable bool
}

// dead reports whether the recorded process is proved gone, or proved not
// to be the claimed daemon.
func (f pidFacts) dead() bool { return !f.alive || f.differs || f.notDaemon != nil }

// probeOwner is probePID for a record or lock that claims c: a live process
// with the recorded incarnation is the owner (equal) only once its command
// line proves it is c's daemon. One that proves another is notDaemon; one
// that cannot be read is unexaminable, failing closed (equal false, alive).
func probeOwner(probe Probe, pid int, recorded string, c DaemonClaim) pidFacts {
	f := probePID(probe, pid, recorded)
	if !f.equal {
		return f
	}
	argv, err := probe.Argv(pid, recorded)
	switch {
	case errors.Is(err, platform.ErrIncarnationMismatch):
		// Exited between the looks, and the PID reused.
		return pidFacts{alive: true, differs: true, err: err}
	case errors.Is(err, platform.ErrProcessGone), errors.Is(err, platform.ErrInvalidPID):
		return pidFacts{}
	case errors.Is(err, platform.ErrArgvTooLong):
		// Ours are a few hundred bytes, but a long prefix (an interpreter's
		// flags) is not proof of another process.
		f.equal, f.unexaminable = false, true
		f.err = &UnprovenDaemonError{PID: pid, Why: "its command line is too long to judge"}
		return f
	case err != nil:
		f.equal, f.unexaminable = false, true
		f.err = fmt.Errorf("its command line cannot be read: %w", err)
		return f
	}
	var unproven *UnprovenDaemonError
	switch err := VerifyDaemonArgv(pid, argv, c); {
	case errors.As(err, &f.notDaemon):
		f.equal = false
	case errors.As(err, &unproven):
		f.equal, f.unexaminable = false, true
		f.err = err
	}
	return f
}

// probePID establishes the facts about pid in one look, failing closed:
// only a clear answer proves death or reuse. A PID no process can have
// (above the kernel's maximum) is dead, as kill(2) would say.
func probePID(probe Probe, pid int, recorded string) pidFacts {
	alive, cur, err := probe.Observe(pid)
	switch {
	case errors.Is(err, platform.ErrInvalidPID):
		return pidFacts{}
	case err != nil:
		// Exists, or liveness unknown: never treated as dead.
		return pidFacts{alive: true, err: err}
	case !alive:
		return pidFacts{}
	}
	return liveFacts(cur, recorded)
}

// liveFacts compares a live PID's current incarnation with the recorded one.
func liveFacts(cur, recorded string) pidFacts {
	if !platform.ValidIncarnation(cur) {
		return pidFacts{alive: true, current: cur, err: platform.ErrInvalidIncarnation}
	}
	return pidFacts{
		alive:   true,
		current: cur,
		equal:   cur == recorded,
		differs: cur != recorded && platform.ValidIncarnation(recorded),
	}
}
