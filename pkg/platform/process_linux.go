package platform

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// processSys holds the pidfd. It is an *os.File so that its descriptor
// number cannot be closed and reused under a concurrent Signal (SyscallConn
// holds a reference for the duration), and so Wait can use the runtime
// poller.
type processSys struct {
	pidfd *os.File
}

func openProcessSys(pid int, want string) (processSys, error) {
	// Prove the incarnation both before and after opening. The pidfd names
	// whichever process held pid at the open; a PID's holders never overlap
	// in time, and the one with incarnation want held it before and after,
	// so it is the process the pidfd names.
	if err := proveIncarnation(pid, want); err != nil {
		return processSys{}, err
	}
	fd, err := pidfdOpen(pid)
	if err != nil {
		return processSys{}, err
	}
	f := os.NewFile(uintptr(fd), fmt.Sprintf("pidfd:%d", pid))
	if err := proveIncarnation(pid, want); err != nil {
		_ = f.Close()
		return processSys{}, err
	}
	return processSys{pidfd: f}, nil
}

// pidfdOpen opens a non-blocking pidfd: os.NewFile registers only
// non-blocking descriptors with the runtime poller.
func pidfdOpen(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err == unix.EINVAL {
		// Linux 5.3 to 5.9 have pidfd_open but not PIDFD_NONBLOCK.
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				_ = unix.Close(fd)
			}
		}
	}
	switch err {
	case nil:
		return fd, nil
	case unix.ESRCH:
		return -1, ErrProcessGone
	default:
		return -1, os.NewSyscallError("pidfd_open", err)
	}
}

func (s processSys) close() error { return s.pidfd.Close() }

func (p *Process) signal(sig syscall.Signal) error {
	rc, err := p.sys.pidfd.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		// A zombie accepts and ignores signals; report it gone, as
		// Alive reports it dead, rather than claim a delivery.
		if exited, perr := pollPidfd(int(fd), 0); perr == nil && exited {
			serr = ErrProcessGone
			return
		}
		// Flags 0: the whole process (thread group) the pidfd names,
		// never its process group.
		serr = unix.PidfdSendSignal(int(fd), sig, nil, 0)
	})
	if err != nil {
		return err
	}
	switch serr {
	case nil, ErrProcessGone:
		return serr
	case unix.ESRCH:
		return ErrProcessGone
	default:
		return os.NewSyscallError("pidfd_send_signal", serr)
	}
}

func (p *Process) exited() (bool, error) {
	rc, err := p.sys.pidfd.SyscallConn()
	if err != nil {
		return false, err
	}
	var exited bool
	var perr error
	if err := rc.Control(func(fd uintptr) { exited, perr = pollPidfd(int(fd), 0) }); err != nil {
		return false, err
	}
	return exited, perr
}

// pollPidfd waits up to timeoutMs (0: not at all) for the pidfd to become
// readable, which it does once the process has exited, reaped or not.
func pollPidfd(fd, timeoutMs int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, timeoutMs)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, os.NewSyscallError("poll", err)
		}
		return n > 0 && fds[0].Revents != 0, nil
	}
}
