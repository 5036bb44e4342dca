package daemonproto

import "fmt"

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
