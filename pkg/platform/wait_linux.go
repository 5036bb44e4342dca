package platform

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// wait parks on the pidfd through the runtime poller (epoll), which wakes us
// when the pidfd becomes readable, that is when the process exits. That
// costs no OS thread per waiter, which matters because the reconcile loop
// watches every owner it observes; and a read deadline, set when ctx is
// done or p is closed, wakes the waiter without a helper goroutine or an
// extra eventfd. Each call polls its own duplicate of the pidfd: waiters on
// one file would queue behind each other's read lock and share a deadline.
func (p *Process) wait(ctx context.Context) error {
	f, err := p.dupPidfd()
	if err != nil {
		return err
	}
	defer f.Close()
	if f.SetReadDeadline(time.Time{}) != nil {
		return p.waitPolling(ctx, f)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	stop := p.onInterrupt(ctx, func() {
		// A deadline in the past makes the parked read return at once;
		// on an already closed f this is a harmless error.
		_ = f.SetReadDeadline(time.Unix(1, 0))
	})
	defer stop()
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		// The poller is edge-triggered and may wake us spuriously: ask
		// the pidfd itself whether the process has exited.
		var exited bool
		exited, perr = pollPidfd(int(fd), 0)
		return exited || perr != nil
	})
	if perr != nil {
		return perr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Woken for ctx or Close: an exit that raced the wake-up wins.
		var exited bool
		if rc.Control(func(fd uintptr) { exited, _ = pollPidfd(int(fd), 0) }) == nil && exited {
			return nil
		}
		if ierr := p.interrupted(ctx); ierr != nil {
			return ierr
		}
	}
	return err
}

// waitPolling serves kernels whose pidfds the runtime poller cannot watch:
// poll(2) in bounded slices, so cancellation is seen within one slice.
func (p *Process) waitPolling(ctx context.Context, f *os.File) error {
	const sliceMs = 50
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	for {
		var exited bool
		var perr error
		if err := rc.Control(func(fd uintptr) { exited, perr = pollPidfd(int(fd), sliceMs) }); err != nil {
			return err
		}
		if exited || perr != nil {
			return perr
		}
		if ierr := p.interrupted(ctx); ierr != nil {
			return ierr
		}
	}
}

func (p *Process) dupPidfd() (*os.File, error) {
	rc, err := p.sys.pidfd.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var derr error
	if err := rc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	return os.NewFile(uintptr(nfd), p.sys.pidfd.Name()), nil
}
