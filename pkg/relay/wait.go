package relay

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff doubles a wait from min to max, with jitter, so that many
// blocked sessions do not retry in step.
type backoff struct {
	min, max, next time.Duration
}

func (r *Relay) newBackoff() *backoff {
	return &backoff{min: r.opts.MinBackoff, max: r.opts.MaxBackoff, next: r.opts.MinBackoff}
}

// wait sleeps the next interval; false when ctx ended first.
func (b *backoff) wait(ctx context.Context) bool {
	return sleep(ctx, b.step())
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// step returns the next interval, with jitter, without waiting it.
func (b *backoff) step() time.Duration {
	d := b.next
	b.next = min(2*b.next, b.max)
	return d/2 + rand.N(d/2+1)
}

// reset starts the intervals again from the shortest.
func (b *backoff) reset() { b.next = b.min }
