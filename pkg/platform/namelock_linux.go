package platform

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

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

// nameSettle bounds how long a taker that finds the name bound waits for
// its holder to answer: a holder is between bind(2) and listen(2) for
// microseconds, and one that just let go frees the name as fast.
const nameSettle = 200 * time.Millisecond

func takeNameLock(key string) (*nameLockSys, error) {
	var ln *net.UnixListener
	deadline := time.Now().Add(nameSettle)
	for {
		var err error
		ln, err = net.ListenUnix("unix", abstractAddr(key))
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("name lock %q: %w", key, err)
		}
		h, held, _ := nameLockHolder(key)
		// Bound but not answering: its holder has not called listen(2)
		// yet, or has just let go. Look again, briefly, rather than report
		// a holder the kernel cannot name.
		if (held && h.PID > 0) || time.Now().After(deadline) {
			return nil, &NameHeldError{Key: key, Holder: h}
		}
		time.Sleep(time.Millisecond)
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

// backlogRetries bounds how often a lookup asks again while the holder's
// backlog is full (many lookups at once, a holder slow to accept): each
// wait is a millisecond, and a full backlog still proves the name held.
const backlogRetries = 200

func nameLockHolder(key string) (NameHolder, bool, error) {
	var c *net.UnixConn
	var err error
	for range backlogRetries {
		c, err = net.DialUnix("unix", nil, abstractAddr(key))
		if !errors.Is(err, syscall.EAGAIN) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return unknownHolder, false, nil
	case errors.Is(err, syscall.EAGAIN):
		return unknownHolder, true, nil // bound, listening, backlog full: held
	case err != nil:
		return unknownHolder, false, fmt.Errorf("name lock %q: %w", key, err)
	}
	defer c.Close()
	rc, err := c.SyscallConn()
	if err != nil {
		return unknownHolder, true, nil
	}
	var cred *unix.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return unknownHolder, true, nil
	}
	return NameHolder{PID: int(cred.Pid), UID: int(cred.Uid)}, true, nil
}
