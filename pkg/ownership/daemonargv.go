package ownership

import (
	"fmt"

	"gjc.dev/reconciler/pkg/daemonproto"
)

// DaemonClaim is who a record or lock says its process is: the claim a
// daemon's command line makes (daemonproto.Claim), OwnerID "" for a lock,
// which names no owner. A live process whose incarnation matches is an
// owner only once its command line says the same (VerifyDaemonArgv): a
// record copied to another name's directory, or one naming any other
// process of the user, proves nothing by its PID alone.
type DaemonClaim = daemonproto.Claim

// ClaimOf is the claim of the daemon whose files p names; the zero claim,
// which no process can prove, for Paths that PathsFor could not have made.
func ClaimOf(p Paths, ownerID string) DaemonClaim {
	if _, err := p.Levels(); err != nil {
		return DaemonClaim{}
	}
	return DaemonClaim{AgentDir: p.AgentDir(), Name: p.Name(), OwnerID: ownerID}
}

// NotDaemonError says why a live process is proved not to be the daemon a
// claim names. It never quotes the process's command line, which may hold
// anything: it says which part differs, not what it holds.
type NotDaemonError struct {
	PID  int
	Want DaemonClaim
	Why  string
}

func (e *NotDaemonError) Error() string {
	return fmt.Sprintf("pid %d is not the %s daemon of %s: %s", e.PID, e.Want.Name, e.Want.AgentDir, e.Why)
}

func (e *NotDaemonError) Reason() string { return ReasonNotThisDaemon }

// UnprovenDaemonError says why a live process's command line neither proves
// it the claimed daemon nor proves it another process: it is fenced as if
// it were the owner, and never signalled.
type UnprovenDaemonError struct {
	PID int
	Why string
}

func (e *UnprovenDaemonError) Error() string {
	return fmt.Sprintf("pid %d cannot be proved this daemon or another process: %s", e.PID, e.Why)
}

func (e *UnprovenDaemonError) Reason() string { return ReasonOwnerUnverifiable }
