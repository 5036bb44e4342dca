package platform

import (
	"context"
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// wait watches the PID with a kqueue of its own (EVFILT_PROC, NOTE_EXIT),
// so concurrent waiters do not compete for one exit event, and blocks in
// kevent(2). An EVFILT_USER event on the same kqueue, triggered when ctx is
// done or p is closed, wakes it.
func (p *Process) wait(ctx context.Context) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return os.NewSyscallError("kqueue", err)
	}
	var mu sync.Mutex // orders wake-ups against closing kq, whose number may be reused
	open := true
	defer func() {
		mu.Lock()
		open = false
		_ = unix.Close(kq)
		mu.Unlock()
	}()

	const wakeIdent = 1
	changes := []unix.Kevent_t{
		{Ident: uint64(p.pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT},
		{Ident: wakeIdent, Filter: unix.EVFILT_USER, Flags: unix.EV_ADD | unix.EV_CLEAR},
	}
	if _, err := unix.Kevent(kq, changes, nil, nil); err != nil {
		if err == unix.ESRCH {
			return nil // no process has the PID any more: ours has exited
		}
		return os.NewSyscallError("kevent", err)
	}
	// The watch is on whatever held the PID when it was registered. Ours
	// held it when opened; if it still does now, the watch is on it.
	if err := p.stillRunning(); err != nil {
		if errors.Is(err, ErrProcessGone) {
			return nil
		}
		return err
	}

	stop := p.onInterrupt(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if open {
			trigger := []unix.Kevent_t{{Ident: wakeIdent, Filter: unix.EVFILT_USER, Fflags: unix.NOTE_TRIGGER}}
			_, _ = unix.Kevent(kq, trigger, nil, nil)
		}
	})
	defer stop()

	events := make([]unix.Kevent_t, 2)
	for {
		n, err := unix.Kevent(kq, nil, events, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return os.NewSyscallError("kevent", err)
		}
		for _, ev := range events[:n] {
			switch {
			case ev.Filter == unix.EVFILT_PROC && ev.Fflags&unix.NOTE_EXIT != 0:
				return nil
			case ev.Filter == unix.EVFILT_USER:
				if ierr := p.interrupted(ctx); ierr != nil {
					return ierr
				}
			}
		}
	}
}
