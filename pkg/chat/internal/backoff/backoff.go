// Package backoff spaces a transport's reconnect attempts.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff spaces reconnect attempts: quick at first, because most drops are
// momentary, and capped, because a service that is down should not be hammered.
type Backoff struct {
	min, max time.Duration
	next     time.Duration
}

// New returns a Backoff whose first wait is about min, doubling up to max.
func New(min, max time.Duration) *Backoff { return &Backoff{min: min, max: max, next: min} }

// Wait sleeps for the next delay (with jitter so that many bots on one machine
// do not reconnect in step) or until ctx is done.
func (b *Backoff) Wait(ctx context.Context) error {
	t := time.NewTimer(b.Next())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Next returns the next delay, with its jitter, and moves on: for a
// caller that waits the longer of it and a wait the service asked for.
func (b *Backoff) Next() time.Duration {
	d := b.next/2 + rand.N(b.next/2+1)
	b.next = min(b.next*2, b.max)
	return d
}

// Reset makes the next wait the shortest again, after a success.
func (b *Backoff) Reset() { b.next = b.min }
