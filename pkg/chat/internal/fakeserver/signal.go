package fakeserver

import (
	"context"
	"errors"
	"fmt"
)

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

// WaitFor blocks until cond holds for a snapshot, ctx ends or the server
// closes, and returns the last snapshot looked at. snapshotLocked runs
// under the fake's lock; cond runs without it and must not block.
func WaitFor[T any](ctx context.Context, s *Server, snapshotLocked func() T, cond func(T) bool) (T, error) {
	for {
		s.mu.Lock()
		snap, changed, closed := snapshotLocked(), s.changed.c(), s.closed
		s.mu.Unlock()
		if cond(snap) {
			return snap, nil
		}
		if closed {
			return snap, fmt.Errorf("%s: %w", s.cfg.Name, ErrClosed)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return snap, fmt.Errorf("%s: condition not met: %w", s.cfg.Name, context.Cause(ctx))
		}
	}
}
