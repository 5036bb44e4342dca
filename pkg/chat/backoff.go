package chat

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff spaces reconnect attempts: quick at first, because most drops are
// momentary, and capped, because a service that is down should not be hammered.
type backoff struct {
	min, max time.Duration
	next     time.Duration
}

func newBackoff(min, max time.Duration) *backoff { return &backoff{min: min, max: max, next: min} }

// wait sleeps for the next delay (with jitter so that many bots on one machine
// do not reconnect in step) or until ctx is done.
func (b *backoff) wait(ctx context.Context) error {
	d := b.next/2 + rand.N(b.next/2+1)
	b.next = min(b.next*2, b.max)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (b *backoff) reset() { b.next = b.min }
