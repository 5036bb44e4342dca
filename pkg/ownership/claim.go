package ownership

import (
	"fmt"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/spec"
)

// AcquireRequest is what a daemon claims ownership as.
type AcquireRequest struct {
	Kind       string          // the provider; a known kind
	OwnerID    string          // unique per spawn: "<reconciler pid>-<uuid>"
	Identity   string          // the identity fingerprint of the config it runs
	Generation spec.Generation // Valid
}

// Validate refuses, with ErrInvalidRequest, a request whose record the
// parser would not read back: an unknown kind, an empty or invalid ownerId
// or identity, a generation that is not a safe integer >= 0.
func (r AcquireRequest) Validate() error {
	switch {
	case !KnownKind(r.Kind):
		return fmt.Errorf("%w: kind %q is not one of %q", ErrInvalidRequest, r.Kind, Kinds())
	case r.OwnerID == "" || !utf8.ValidString(r.OwnerID):
		return fmt.Errorf("%w: ownerId must be non-empty UTF-8", ErrInvalidRequest)
	case r.Identity == "" || !utf8.ValidString(r.Identity):
		return fmt.Errorf("%w: identity must be non-empty UTF-8", ErrInvalidRequest)
	case !r.Generation.Valid():
		return fmt.Errorf("%w: generation %d is not a safe integer >= 0", ErrInvalidRequest, r.Generation)
	}
	return nil
}

// Claim is the daemon's side of an ownership backend: a name it holds, from
// Acquirer.Acquire, until Release or until ownership is lost. A backend
// checks, before each write it makes for the claim, that the claim is still
// the owner; a heartbeat that finds it is not returns ErrOwnershipLost.
type Claim interface {
	// Renew heartbeats, publishing the transport's health and the
	// relay's. An error that is ErrOwnershipLost means the name is no
	// longer this claim's: stop everything at once, release nothing.
	Renew(hb Heartbeat) error
	// Release gives the name up, recording t when the service refused the
	// daemon for good (nil for a plain stop).
	Release(t *Terminated) error
	// StopRequested reports whether a request to stop addressed to this
	// owner is waiting; requests for anyone else are left alone. An
	// unreadable request is an error, never a stop.
	StopRequested() (bool, error)
	// Fence proves that this claim still owns the name; call it before
	// every side effect the name's owner alone may have (a post, say). An
	// error that is ErrOwnershipLost means it does not: do nothing.
	Fence() error
	// Lost is closed the moment a heartbeat or a fence finds the
	// ownership lost: every component stops at once.
	Lost() <-chan struct{}
	// State is the record as last published.
	State() State
	// ControlChanged is poked when a control request may have arrived, so
	// the daemon reads StopRequested then and not only on its next
	// heartbeat. It is nil for a claim whose requests arrive where the
	// daemon watches already (one machine: control.json in the daemon's
	// own directory).
	ControlChanged() <-chan struct{}
	// Close ends the claim as the process's exit would, after Release or
	// at once when the ownership was lost: what it holds beyond the record
	// (a kernel's name lock, a fleet's lease) is let go, so a successor
	// may start, and the claim counts as lost from then on. The record is
	// left as it is.
	Close() error
}

// Heartbeat is what a daemon publishes with each renewal.
type Heartbeat struct {
	TransportHealthy bool
	TransportError   string      // why the transport is down; kept only while it is
	TransportReason  string      // with TransportError: a daemonproto transport reason, or ""
	Relay            *RelayState // nil: the daemon runs no relay, or it has not reported yet
	Logins           *Logins     // nil: the service counts none, or the daemon has not read it yet
}

// Acquirer is what a daemon takes its name from: at most one live Claim per
// name, whoever asks. A refusal because another owner holds the name is a
// *HeldError or a *ReclaimBusyError.
type Acquirer interface {
	Acquire(name string, req AcquireRequest) (Claim, error)
}
