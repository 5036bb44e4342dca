package fakeserver

import "errors"

// ErrClosed is what WaitFor returns once the server is closed: nothing can
// change any more.
var ErrClosed = errors.New("server closed")

// signal wakes every waiter on each change; guarded by the fake's lock.
// The zero value is ready to use.
type signal struct{ ch chan struct{} }

// c is closed at the next notify.
func (s *signal) c() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) notify() {
	if s.ch != nil {
		close(s.ch)
	}
	s.ch = make(chan struct{})
}

// NotifyLocked wakes every WaitFor: the fake calls it after each change an
// observer could wait for.
func (s *Server) NotifyLocked() { s.changed.notify() }
