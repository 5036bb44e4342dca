package fakeserver

import (
	"context"
	"fmt"
)

// View is how a test looks at a fake: T is the fake's Snapshot, which its
// snapshotLocked copies under the fake's lock. A fake embeds it.
type View[T any] struct {
	s              *Server
	snapshotLocked func() T
}

// NewView makes the View of a fake whose state snapshotLocked copies.
func NewView[T any](s *Server, snapshotLocked func() T) View[T] {
	return View[T]{s: s, snapshotLocked: snapshotLocked}
}

// Snapshot returns a copy of the fake's observable state.
func (v View[T]) Snapshot() T {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	return v.snapshotLocked()
}

// WaitFor blocks until cond holds for a snapshot, the context ends or the
// fake closes (ErrClosed), and returns the last snapshot it looked at.
// cond runs without the fake's lock held and must not block.
func (v View[T]) WaitFor(ctx context.Context, cond func(T) bool) (T, error) {
	s := v.s
	for {
		s.mu.Lock()
		snap, changed, closed := v.snapshotLocked(), s.changed.c(), s.closed
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

// Requests returns the log of the requests the fake answered, oldest first
// (the newest 10,000): what a test reads to see what a client asked and got.
func (v View[T]) Requests() []Request { return v.s.Requests() }
