package platform

import "fmt"

// Incarnation returns the incarnation of the process pid:
// "darwin:<sec>:<usec>", its start time from sysctl kern.proc.pid, which the
// kernel fixes at fork. A PID with no process wraps ErrProcessGone. A zombie
// still has its incarnation; Alive reports it dead.
func Incarnation(pid int) (string, error) {
	if err := checkPID(pid); err != nil {
		return "", fmt.Errorf("incarnation: %w", err)
	}
	kp, err := kinfoProc(pid)
	if err != nil {
		return "", fmt.Errorf("incarnation: %w", err)
	}
	return kinfoIncarnation(kp), nil
}
