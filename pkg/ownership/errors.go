package ownership

import (
	"errors"
	"fmt"
)

// Sentinels that the typed errors below match with errors.Is. Every refusal
// is typed and says what differed; Reason(err) gives its CamelCase reason.
var (
	// ErrBadPaths: Paths that PathsFor could not have made for a valid
	// daemon name.
	ErrBadPaths = errors.New("not a daemon directory of the contract")
	// ErrInvalidRequest: an AcquireRequest or ControlRequest that would
	// write a record no reader accepts.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrNoIncarnation: this process cannot prove its own incarnation, so
	// it has no authority to own anything; nothing was created.
	ErrNoIncarnation = errors.New("own process incarnation cannot be proven")
	// ErrMalformed is matched by every *MalformedError.
	ErrMalformed = errors.New("malformed record")
	// ErrHeld is matched by every *HeldError.
	ErrHeld = errors.New("daemon is owned by a live process")
	// ErrReclaimBusy is matched by every *ReclaimBusyError.
	ErrReclaimBusy = errors.New("another process is reclaiming the lock")
	// ErrOwnershipLost is matched by every *OwnershipLostError.
	ErrOwnershipLost = errors.New("ownership lost")
	// ErrOwnerChanged is matched by every *OwnerChangedError.
	ErrOwnerChanged = errors.New("owner changed since the decision")
	// ErrNotSignalable is matched by every *NotSignalableError.
	ErrNotSignalable = errors.New("owner may not be signalled")
	// ErrNewerOwner is matched by a *NotSignalableError for an owner whose
	// generation is ahead of the desired one: never signalled, never
	// downgraded.
	ErrNewerOwner = errors.New("owner is newer than desired")
	// ErrControlChanged is matched by every *ControlChangedError.
	ErrControlChanged = errors.New("control request is not the one to clear")
)

// MalformedError says why a record (state.json, owner.lock, the reclaim
// lock or control.json) cannot be trusted. Nothing is written, created or
// signalled because of such a record.
type MalformedError struct {
	Path  string
	Field string // the first field at fault; empty when the file as a whole is
	Err   error
}

func (e *MalformedError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("malformed %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("malformed %s: %s: %v", e.Path, e.Field, e.Err)
}

func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }
func (e *MalformedError) Unwrap() error        { return e.Err }
func (e *MalformedError) Reason() string {
	switch {
	case errors.Is(e.Err, ErrUnsafeDirectory):
		return ReasonUnsafeDirectory
	case hasBase(e.Path, LockFile), hasBase(e.Path, ReclaimFile):
		return ReasonMalformedOwnerLock
	case hasBase(e.Path, ControlFile):
		return ReasonMalformedControl
	}
	return ReasonMalformedOwnerRecord
}

// HeldError reports that a live process holds the daemon: the record's
// owner (Source state.json) or the lock's (Source owner.lock). OwnerID is
// empty when only the lock names the holder.
type HeldError struct {
	PID         int
	OwnerID     string
	Incarnation string
	Source      string // StateFile or LockFile
	// Released: the record says the owner released, but its process has
	// not exited yet; a successor waits for the exit.
	Released bool
	// Unproven: the PID is live and its incarnation could not be read, so
	// it is not proved to be another process.
	Unproven bool
	// OtherUser: the name lock is held by a process of another user, uid
	// OtherUID (the kernel's namespace of names has no permissions): a
	// squatter, not a daemon of ours, and still nothing can start beside it.
	OtherUser bool
	OtherUID  int
	// Unseen: the kernel names the name lock's holder by its user but
	// gives it no PID here: it runs outside this process's PID namespace
	// (unshare -p, a container), where this process can neither see nor
	// examine it, and must not judge it by the PIDs it can see.
	Unseen bool
}

func (e *HeldError) Error() string {
	msg := fmt.Sprintf("owned by pid %d", e.PID)
	if e.OwnerID != "" {
		msg += fmt.Sprintf(" (owner %s)", e.OwnerID)
	}
	switch {
	case e.Unseen && !e.OtherUser:
		msg += ": a process outside this process's PID namespace holds this daemon's name lock; it cannot be examined from here"
	case e.OtherUser:
		msg += fmt.Sprintf(": a process of another user (uid %d) holds this daemon's name lock; it is no daemon of yours, end it or ask its owner", e.OtherUID)
	case e.Released:
		msg += ": released, not yet exited"
	case e.Unproven:
		msg += ": live, and not proved to be another process"
	}
	return msg + " [" + e.Source + "]"
}

func (e *HeldError) Is(target error) bool { return target == ErrHeld }
func (e *HeldError) Reason() string {
	if e.Released {
		return ReasonOwnerExiting
	}
	return ReasonOwnerHeld
}

// ReclaimBusyError reports a live process holding owner.lock.reclaim: it is
// never stolen.
type ReclaimBusyError struct {
	PID         int
	Incarnation string
}

func (e *ReclaimBusyError) Error() string {
	if e.PID == 0 {
		return "another process is reclaiming the owner lock"
	}
	return fmt.Sprintf("pid %d is reclaiming the owner lock", e.PID)
}
func (e *ReclaimBusyError) Is(target error) bool { return target == ErrReclaimBusy }
func (e *ReclaimBusyError) Reason() string       { return ReasonReclaimBusy }

// OwnershipLostError reports that an Owner's record or lock is no longer
// its own, or that it can no longer prove its own incarnation. The daemon
// must stop its transport at once and exit; nothing was written.
type OwnershipLostError struct {
	What string // StateFile, LockFile or "incarnation"
	// Field is the first field that differs ("ownerId", "pid", ...); empty
	// when the file as a whole is gone, malformed or another file.
	Field     string
	Want, Got string
	Err       error
}

func (e *OwnershipLostError) Error() string {
	msg := "ownership lost: " + e.What
	if e.Field != "" {
		msg += " " + e.Field
	}
	if e.Want != "" || e.Got != "" {
		msg += fmt.Sprintf(" is %s, ours is %s", orNone(e.Got), orNone(e.Want))
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *OwnershipLostError) Is(target error) bool { return target == ErrOwnershipLost }
func (e *OwnershipLostError) Unwrap() error        { return e.Err }
func (e *OwnershipLostError) Reason() string       { return ReasonOwnershipLost }

// OwnerChangedError reports that the record no longer names the owner the
// caller decided to signal: nothing was signalled.
type OwnerChangedError struct {
	Field     string // "state.json" when the record is gone, else the JSON key
	Want, Got string
}

func (e *OwnerChangedError) Error() string {
	return fmt.Sprintf("owner changed: %s is %s, decided on %s; refusing to signal", e.Field, orNone(e.Got), orNone(e.Want))
}
func (e *OwnerChangedError) Is(target error) bool { return target == ErrOwnerChanged }
func (e *OwnerChangedError) Reason() string       { return ReasonOwnerChanged }

// NotSignalableError reports an owner that may not be signalled although
// it is (as far as can be proved) the one decided on: a newer generation,
// a foreign kind, a record from a previous boot, or a live PID whose
// incarnation cannot be proved. Nothing was signalled.
type NotSignalableError struct {
	PID    int
	Code   string // the CamelCase reason, ReasonGenerationAhead, ...
	Detail string
	Err    error
}

func (e *NotSignalableError) Error() string {
	msg := fmt.Sprintf("refusing to signal pid %d: %s", e.PID, e.Detail)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *NotSignalableError) Is(target error) bool {
	return target == ErrNotSignalable || (target == ErrNewerOwner && e.Code == ReasonGenerationAhead)
}
func (e *NotSignalableError) Unwrap() error  { return e.Err }
func (e *NotSignalableError) Reason() string { return e.Code }

// ControlChangedError reports that control.json holds another request than
// the one to clear (or none that parses): it is left alone.
type ControlChangedError struct{ Want, Got string }

func (e *ControlChangedError) Error() string {
	return fmt.Sprintf("control request is %s, not %s; left in place", orNone(e.Got), orNone(e.Want))
}
func (e *ControlChangedError) Is(target error) bool { return target == ErrControlChanged }
func (e *ControlChangedError) Reason() string       { return ReasonControlChanged }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
