package platform

import (
	"errors"
	"fmt"

	"gjc.dev/reconciler/pkg/incarnation"
)

// MaxArgvSize caps what is read of a process's argument vector. A daemon's
// command line is a few hundred bytes; a longer one is not a daemon's, and
// an endless one must not exhaust memory.
const MaxArgvSize = 64 << 10

// ErrArgvTooLong reports a command line over MaxArgvSize.
var ErrArgvTooLong = errors.New("command line too long")

// ProcessArgv returns the argument vector of the process pid whose
// incarnation is inc. The incarnation is proved both before and
// after the read, so the vector is that process's and no other's: a PID's
// holders never overlap in time. It fails with an error matching
// ErrProcessGone once the process is gone, ErrIncarnationMismatch if pid
// names another process, ErrArgvTooLong for a command line over
// MaxArgvSize; any other error means the process could not be examined.
func ProcessArgv(pid int, inc string) ([]string, error) {
	if err := checkPID(pid); err != nil {
		return nil, fmt.Errorf("argv: %w", err)
	}
	if !incarnation.Valid(inc) {
		return nil, fmt.Errorf("argv of pid %d: %w: %q", pid, ErrInvalidIncarnation, inc)
	}
	if err := proveIncarnation(pid, inc); err != nil {
		return nil, fmt.Errorf("argv of pid %d: %w", pid, err)
	}
	argv, err := readArgv(pid)
	if err != nil {
		return nil, fmt.Errorf("argv of pid %d: %w", pid, err)
	}
	if err := proveIncarnation(pid, inc); err != nil {
		return nil, fmt.Errorf("argv of pid %d: %w", pid, err)
	}
	return argv, nil
}
