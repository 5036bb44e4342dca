// Package changes lets a fake server's observers wait, with a deadline, for
// its state to reach a condition instead of sleeping and hoping.
package changes

import (
	"context"
	"fmt"
)

// Signal wakes every waiter on each change. Its owner calls C and Notify
// with its own lock held. The zero value is ready to use.
type Signal struct{ ch chan struct{} }

// C is closed at the next Notify.
func (s *Signal) C() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Notify wakes everyone waiting on C.
func (s *Signal) Notify() {
	if s.ch != nil {
		close(s.ch)
	}
	s.ch = make(chan struct{})
}

// WaitFor blocks until cond holds for a snapshot, ctx ends or the server
// closes, and returns the last snapshot looked at. look takes the owner's
// lock and returns a snapshot, its Signal's C, and whether it is closed;
// cond runs without the lock and must not block.
func WaitFor[T any](ctx context.Context, who string, closed error, look func() (T, <-chan struct{}, bool), cond func(T) bool) (T, error) {
	for {
		snap, changed, isClosed := look()
		if cond(snap) {
			return snap, nil
		}
		if isClosed {
			return snap, closed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return snap, fmt.Errorf("%s: condition not met: %w", who, context.Cause(ctx))
		}
	}
}
