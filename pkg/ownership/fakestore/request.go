package fakestore

import (
	"fmt"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Request is a stop's control request to one exact owner: what fsstore
// writes to control.json before it signals. The fake keeps its own type, as
// a fleet's backend would keep its own form of one.
type Request struct {
	ID, Action, OwnerID string
	PID                 int
	Incarnation         string
	CreatedAt           int64 // unix ms
}

// addressedTo reports whether r is for the owner s names.
func (r Request) addressedTo(s ownership.State) bool {
	return r.OwnerID == s.OwnerID && r.PID == s.PID && r.Incarnation == s.Incarnation
}

// goneError reports that the owner decided on is proved gone: its PID
// dead, reused, or live but not this name's daemon. Like fsstore's, it
// matches platform.ErrProcessGone, and so tells a stop it need send
// nothing.
type goneError struct {
	pid       int
	reused    bool
	notDaemon bool
	err       error
}

func (e *goneError) Error() string {
	msg := fmt.Sprintf("owner pid %d has exited", e.pid)
	switch {
	case e.reused:
		msg += " (pid reused by another process)"
	case e.notDaemon:
		msg = fmt.Sprintf("the record's owner is gone: pid %d is not this daemon", e.pid)
	}
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	return msg
}

func (e *goneError) Is(target error) bool { return target == platform.ErrProcessGone }
func (e *goneError) Unwrap() error        { return e.err }

func (e *goneError) Reason() string {
	switch {
	case e.notDaemon:
		return ownership.ReasonNotThisDaemon
	case e.reused:
		return ownership.ReasonPIDReused
	}
	return ownership.ReasonOwnerExited
}
