package platform

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// processSys is empty: macOS has no pidfd, so the reference is the PID plus
// the incarnation, re-proved before every use.
type processSys struct{}

func openProcessSys(pid int, want string) (processSys, error) {
	return processSys{}, proveIncarnation(pid, want)
}

func (processSys) close() error { return nil }

// signal re-reads the start time right before kill(2). What remains is the
// gap between the two system calls, in which the process would have to
// exit, be reaped, and its PID be handed out again: the best macOS allows.
func (p *Process) signal(sig syscall.Signal) error {
	if err := p.stillRunning(); err != nil {
		return err
	}
	switch err := unix.Kill(p.pid, sig); err {
	case nil:
		return nil
	case unix.ESRCH:
		return ErrProcessGone
	default:
		return os.NewSyscallError("kill", err)
	}
}

func (p *Process) exited() (bool, error) {
	err := p.stillRunning()
	if errors.Is(err, ErrProcessGone) {
		return true, nil
	}
	return false, err
}

// stillRunning fails with ErrProcessGone unless pid still names our
// process and it has not exited.
func (p *Process) stillRunning() error {
	kp, err := kinfoProc(p.pid)
	if err != nil {
		return err
	}
	if got := kinfoIncarnation(kp); got != p.incarnation {
		return fmt.Errorf("%w: pid now has incarnation %s, not %s", ErrProcessGone, got, p.incarnation)
	}
	if kp.Proc.P_stat == darwinSZOMB {
		return fmt.Errorf("%w: zombie", ErrProcessGone)
	}
	return nil
}
