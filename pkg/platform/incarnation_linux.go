package platform

import (
	"fmt"

	"gjc.dev/reconciler/pkg/incarnation"
)

// Incarnation returns the incarnation of the process pid: "linux:<ticks>",
// its start time in clock ticks since boot (field 22 of /proc/<pid>/stat).
// The kernel fixes it at fork, so it tells a PID's successive owners apart.
// A PID with no process wraps ErrProcessGone. A zombie still has its
// incarnation; Alive reports it dead.
func Incarnation(pid int) (string, error) {
	if err := checkPID(pid); err != nil {
		return "", fmt.Errorf("incarnation: %w", err)
	}
	st, err := readProcStat(pid)
	if err != nil {
		return "", fmt.Errorf("incarnation: %w", err)
	}
	return incarnation.LinuxPrefix + st.startTicks, nil
}
