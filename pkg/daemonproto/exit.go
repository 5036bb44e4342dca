package daemonproto

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exit codes of `reconciler daemon`. The reconciler does not branch on
// them (it judges the record a daemon leaves, not how it exited); they are
// for the daemon's log, the reconciler's messages and tests.
const (
	ExitStopped = 0 // stopped on request (control.json or a signal), released
	ExitFailed  = 1 // could not run or ended unexpectedly; retried
	ExitUsage   = 2 // its command line or config on stdin is wrong; nothing touched
	ExitHeld    = 3 // another live owner holds the name; never connected
	ExitLost    = 4 // ownership lost while running; components stopped at once, record left alone
	// ExitTerminal: the service refused the daemon for good; the reason is
	// in its record's terminated field, and it is not respawned until the
	// identity or generation changes. 78 is EX_CONFIG of sysexits.h.
	ExitTerminal = 78
)

// ExitMeaning says in a few words what a daemon's exit code means.
func ExitMeaning(code int) string {
	switch code {
	case ExitStopped:
		return "stopped on request"
	case ExitFailed:
		return "failed"
	case ExitUsage:
		return "wrong command line or config"
	case ExitHeld:
		return "the name is held by another owner"
	case ExitLost:
		return "ownership lost"
	case ExitTerminal:
		return "refused by the service for good"
	case -1:
		return "ended by a signal"
	}
	return fmt.Sprintf("unknown exit code %d", code)
}

// Exit is how a daemon ended, as the parent that waited on it saw it:
// an exit code, or the signal that killed it (Code is -1 then).
type Exit struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"` // "SIGKILL"
}

// ExitOf reads an Exit from a wait's result; nil (a wait that failed)
// is an exit nothing is known of, Code -1 and no signal.
func ExitOf(ps *os.ProcessState) Exit {
	if ps == nil {
		return Exit{Code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: unix.SignalName(ws.Signal())}
	}
	return Exit{Code: ps.ExitCode()}
}

// String says how it ended, with the code's meaning: "killed by signal
// SIGKILL", "exited with code 78 (refused by the service for good)".
func (e Exit) String() string {
	switch {
	case e.Signal != "":
		return "killed by signal " + e.Signal
	case e.Code < 0:
		return "ended, how is not known (its wait failed)"
	}
	return fmt.Sprintf("exited with code %d (%s)", e.Code, ExitMeaning(e.Code))
}
