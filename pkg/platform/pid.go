package platform

import "fmt"

// checkPID rejects PIDs that kill(2) would read as something other than one
// process (0 and negatives address process groups) or that no process can
// have.
func checkPID(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("%w: %d", ErrInvalidPID, pid)
	}
	if max := maxPID(pid); pid > max {
		return fmt.Errorf("%w: %d is above the kernel maximum %d", ErrInvalidPID, pid, max)
	}
	return nil
}
