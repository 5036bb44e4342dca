package platform

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Alive reports whether the process pid exists and can still run. ESRCH
// means dead. Success and EPERM mean it exists (EPERM: it exists but is not
// ours to signal, which is never proof of death). A zombie is dead: it can
// do nothing more, although kill(pid, 0) still succeeds on it until reaped.
// An invalid PID is an error wrapping ErrInvalidPID and is never signalled.
func Alive(pid int) (bool, error) {
	if err := checkPID(pid); err != nil {
		return false, fmt.Errorf("alive: %w", err)
	}
	exists, err := pidExists(pid)
	if err != nil || !exists {
		return false, err
	}
	z, err := isZombie(pid)
	switch {
	case err == nil:
		return !z, nil
	case errors.Is(err, ErrProcessGone):
		// Reaped since kill(2) answered, or hidden from us (Linux
		// hidepid=): ask kill(2) again, which tells the two apart.
		return pidExists(pid)
	default:
		// kill(2) proved the process exists; not seeing whether it is a
		// zombie leaves it alive, the answer that never lets a live
		// owner be replaced.
		return true, nil
	}
}

func pidExists(pid int) (bool, error) {
	switch err := unix.Kill(pid, 0); err {
	case nil, unix.EPERM:
		return true, nil
	case unix.ESRCH:
		return false, nil
	default:
		return false, fmt.Errorf("alive: kill(%d, 0): %w", pid, err)
	}
}
