package platform

import (
	"errors"
	"fmt"
)

// Observe answers Alive and Incarnation together from one read of the
// process's state: classifying a record asks both, on every pass, for
// every daemon. alive follows Alive's rules (EPERM alive, a zombie dead);
// incarnation is empty, with err set, when it could not be read although
// the process exists.
func Observe(pid int) (alive bool, incarnation string, err error) {
	if err := checkPID(pid); err != nil {
		return false, "", fmt.Errorf("observe: %w", err)
	}
	exists, err := pidExists(pid)
	if err != nil || !exists {
		return false, "", err
	}
	zombie, inc, err := processFacts(pid)
	switch {
	case err == nil:
		return !zombie, inc, nil
	case errors.Is(err, ErrProcessGone):
		// Reaped since kill(2) answered, or hidden from us: ask again.
		exists, kerr := pidExists(pid)
		if kerr != nil || !exists {
			return false, "", kerr
		}
		return true, "", fmt.Errorf("incarnation: %w", err)
	default:
		return true, "", fmt.Errorf("incarnation: %w", err)
	}
}
