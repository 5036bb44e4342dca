package platform

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux a name lock is a listening socket in the abstract unix namespace:
// the name exists only while a socket is bound to it, lives in no
// filesystem, and is freed by the kernel when the holder's last descriptor
// closes, at exit included. A connect plus SO_PEERCRED names the holder.
type nameLockSys struct {
	ln   *net.UnixListener
	once sync.Once
	done chan struct{}
}

func abstractAddr(key string) *net.UnixAddr {
	return &net.UnixAddr{Net: "unix", Name: "@" + key}
}

func takeNameLock(key string) (*nameLockSys, error) {
	var ln *net.UnixListener
	for attempt := 0; ; attempt++ {
		var err error
		ln, err = net.ListenUnix("unix", abstractAddr(key))
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("name lock %q: %w", key, err)
		}
		pid, held, _ := nameLockHolder(key)
		// Not held by the time we looked: its holder let go between the
		// bind and the look. Bind again, a few times, rather than report
		// a holder that is gone.
		if held || attempt == 3 {
			return nil, &NameHeldError{Key: key, PID: pid}
		}
	}
	s := &nameLockSys{ln: ln, done: make(chan struct{})}
	// Answer lookups: a backlog left full would make them fail as if the
	// name were free.
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return s, nil
}

func (s *nameLockSys) release() error {
	var err error
	s.once.Do(func() {
		err = s.ln.Close()
		<-s.done
	})
	return err
}

func nameLockHolder(key string) (int, bool, error) {
	c, err := net.DialUnix("unix", nil, abstractAddr(key))
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return 0, false, nil
	case errors.Is(err, syscall.EAGAIN):
		return 0, true, nil // bound, listening, backlog full: held
	case err != nil:
		return 0, false, fmt.Errorf("name lock %q: %w", key, err)
	}
	defer c.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, true, nil
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return 0, true, nil
	}
	return int(cred.Pid), true, nil
}
