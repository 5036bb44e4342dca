package fsstore

import (
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership"
	"syscall"

	"gjc.dev/reconciler/pkg/platform"
)

// SignalOwner sends sig to the owner the caller decided on, and to nothing
// else. It re-reads the record and requires ownerId, pid, identity,
// incarnation, generation and kind to equal decided's (else an
// *OwnerChangedError naming the first that differs); with want set, it
// refuses an owner of another kind (ForeignOwner) and one whose generation
// is ahead of want's (ErrNewerOwner). want is nil for a name no source
// declares (prune, stop of an unmanaged name). A record from a previous
// boot, or a live PID whose incarnation cannot be proved, is refused
// (*NotSignalableError). The signal goes through a stable process reference
// (platform.OpenProcess, a pidfd on Linux) whose incarnation is re-proved,
// to the process only, never its group.
//
// A release written by the owner between the decision and the signal does
// not refuse it: the process is the same one, and a released owner stuck
// in its exit must still be reachable by SIGKILL.
//
// The process must also prove to be this name's daemon by its command line
// (VerifyDaemonArgv); one that proves another process is reported as gone
// for this name (OwnerGoneError.NotDaemon) and never signalled, one that
// cannot be examined is refused (OwnerUnverifiable).
//
// An owner that has exited meanwhile (dead, or its PID reused) is reported
// by an error matching platform.ErrProcessGone, so a caller waiting for its
// death may take that as proof. Nothing is signalled on any error.
func SignalOwner(p ownership.Paths, want *ownership.Desired, decided ownership.State, sig syscall.Signal, probe Probe) error {
	proc, err := OpenOwner(p, want, decided, probe)
	if err != nil {
		return err
	}
	defer proc.Close()
	if err := proc.Signal(sig); err != nil {
		if errors.Is(err, platform.ErrProcessGone) {
			return &OwnerGoneError{PID: decided.PID, Err: err}
		}
		return fmt.Errorf("signal owner %s: %w", decided.OwnerID, err)
	}
	return nil
}

// OpenOwner makes every check of SignalOwner and returns a stable reference
// to the owner's process, to signal or to wait on; the caller closes it.
func OpenOwner(p ownership.Paths, want *ownership.Desired, decided ownership.State, probe Probe) (*platform.Process, error) {
	// Every level, not just the daemon directory ReadState judges: what is
	// signalled must come from a record nobody else could have placed.
	if _, err := checkDir(p); err != nil {
		return nil, &ownership.MalformedError{Path: p.State, Err: err}
	}
	rec := ReadState(p)
	switch {
	case !rec.Present:
		return nil, &ownership.OwnerChangedError{Field: ownership.StateFile, Want: "owner " + decided.OwnerID, Got: "no record"}
	case rec.Legacy:
		return nil, &ownership.MalformedError{Path: p.State, Field: "incarnation",
			Err: fmt.Errorf("legacy %q record has no authority to be signalled", ownership.LegacyIncarnation)}
	case rec.Malformed != nil:
		return nil, rec.Malformed
	case rec.State == nil:
		return nil, &ownership.MalformedError{Path: p.State, Err: errors.New("no record")}
	}
	cur := rec.State
	if err := ownership.MaySignal(decided, *cur, want, GatherBoot(probe)); err != nil {
		return nil, err
	}
	// The process must prove, by its command line, to be this name's daemon
	// running as this owner: a record that names any other live process (a
	// copy from another daemon's dir, the loop, PID 1) gets nothing sent.
	f := probeOwner(probe, cur.PID, cur.Incarnation, ownership.ClaimOf(p, cur.OwnerID))
	switch {
	case !f.Alive:
		return nil, &OwnerGoneError{PID: cur.PID}
	case f.Differs:
		return nil, &OwnerGoneError{PID: cur.PID, Reused: true,
			Err: &platform.IncarnationMismatchError{PID: cur.PID, Want: cur.Incarnation, Got: f.Current}}
	case f.NotDaemon != nil:
		return nil, &OwnerGoneError{PID: cur.PID, NotDaemon: true, Err: f.NotDaemon}
	case f.Unexaminable:
		return nil, &ownership.NotSignalableError{PID: cur.PID, Code: ownership.ReasonOwnerUnverifiable,
			Detail: "live, but it cannot be proved to be this daemon", Err: f.Err}
	case !f.Equal:
		return nil, &ownership.NotSignalableError{PID: cur.PID, Code: ownership.ReasonOwnerUnverifiable,
			Detail: "live, but its incarnation cannot be proved", Err: f.Err}
	}
	proc, err := platform.OpenProcess(cur.PID, cur.Incarnation)
	switch {
	case err == nil:
		return proc, nil
	case errors.Is(err, platform.ErrIncarnationMismatch):
		return nil, &OwnerGoneError{PID: cur.PID, Reused: true, Err: err}
	case errors.Is(err, platform.ErrProcessGone):
		return nil, &OwnerGoneError{PID: cur.PID, Err: err}
	}
	return nil, &ownership.NotSignalableError{PID: cur.PID, Code: ownership.ReasonOwnerUnverifiable, Detail: "no stable process reference", Err: err}
}
