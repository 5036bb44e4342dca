package ownership

import (
	"errors"
	"fmt"
)

// A fleet's store (etcdstore) keeps records on a cluster that may be out
// of reach, and lets only the machine that leads a name act on it. These
// are its answers, so the loop can report them without knowing the store.
const (
	ReasonStoreUnreachable = "OwnershipStoreUnreachable"
	ReasonLedElsewhere     = "LedByAnotherMachine"
)

// ErrStoreUnreachable: the records could not be read or written, so
// nothing about any owner is known; nothing is done on a guess.
var ErrStoreUnreachable = errors.New("ownership store unreachable")

// UnreachableError reports a store that did not answer: what was asked,
// and why it failed.
type UnreachableError struct {
	Op  string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: ownership store unreachable: %v", e.Op, e.Err)
}
func (e *UnreachableError) Is(target error) bool { return target == ErrStoreUnreachable }
func (e *UnreachableError) Unwrap() error        { return e.Err }
func (e *UnreachableError) Reason() string       { return ReasonStoreUnreachable }

// ErrLedElsewhere is matched by every *LedElsewhereError.
var ErrLedElsewhere = errors.New("another machine leads this name")

// LedElsewhereError: in a fleet only the machine that won a name's election
// spawns or stops its daemon; this one did not. Leader is that machine's
// id, "" while nobody leads.
type LedElsewhereError struct {
	Name, Leader string
}

func (e *LedElsewhereError) Error() string {
	if e.Leader == "" {
		return fmt.Sprintf("no machine leads %s yet", e.Name)
	}
	return fmt.Sprintf("machine %q leads %s", e.Leader, e.Name)
}
func (e *LedElsewhereError) Is(target error) bool { return target == ErrLedElsewhere }
func (e *LedElsewhereError) Reason() string       { return ReasonLedElsewhere }
