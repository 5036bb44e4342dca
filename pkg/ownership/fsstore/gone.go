package fsstore

import (
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// OwnerGoneError reports that the owner decided on has exited: its PID is
// dead, or names another process now (reused). It matches
// platform.ErrProcessGone, so a caller waiting for the owner's death can
// treat it as proof. Nothing was signalled.
type OwnerGoneError struct {
	PID    int
	Reused bool
	// NotDaemon: the PID is live but proved not to be this name's daemon
	// (Err is the *NotDaemonError): the record's owner is gone for this
	// name, and that process is no business of ours.
	NotDaemon bool
	Err       error // the error that proved it, if any
}

func (e *OwnerGoneError) Error() string {
	msg := fmt.Sprintf("owner pid %d has exited", e.PID)
	switch {
	case e.Reused:
		msg += " (pid reused by another process)"
	case e.NotDaemon:
		msg = fmt.Sprintf("the record's owner is gone: pid %d is not this daemon", e.PID)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *OwnerGoneError) Is(target error) bool { return target == platform.ErrProcessGone }
func (e *OwnerGoneError) Unwrap() error        { return e.Err }
func (e *OwnerGoneError) Reason() string {
	if e.NotDaemon {
		return ownership.ReasonNotThisDaemon
	}
	if e.Reused {
		return ownership.ReasonPIDReused
	}
	return ownership.ReasonOwnerExited
}
