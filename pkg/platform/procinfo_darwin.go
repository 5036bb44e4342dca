package platform

import (
	"fmt"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/incarnation"
)

// darwinSZOMB is SZOMB from <sys/proc.h>: exited, not yet reaped.
const darwinSZOMB = 5

// kinfoProc returns the kernel's kinfo_proc for pid. A PID with no process
// wraps ErrProcessGone.
func kinfoProc(pid int) (*unix.KinfoProc, error) {
	// The slice form reports a missing process as an empty answer; the
	// single form would turn it into EIO, indistinguishable from a fault.
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pid", pid)
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	if len(procs) == 0 || int(procs[0].Proc.P_pid) != pid {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
	}
	return &procs[0], nil
}

func kinfoIncarnation(kp *unix.KinfoProc) string {
	start := kp.Proc.P_starttime
	return fmt.Sprintf("%s%d:%d", incarnation.DarwinPrefix, start.Sec, start.Usec)
}

// isZombie reports whether pid has exited but not been reaped (SZOMB).
func isZombie(pid int) (bool, error) {
	kp, err := kinfoProc(pid)
	if err != nil {
		return false, err
	}
	return kp.Proc.P_stat == darwinSZOMB, nil
}

// processFacts reads whether pid is a zombie and its incarnation in one look.
func processFacts(pid int) (zombie bool, incarnation string, err error) {
	kp, err := kinfoProc(pid)
	if err != nil {
		return false, "", err
	}
	return kp.Proc.P_stat == darwinSZOMB, kinfoIncarnation(kp), nil
}
