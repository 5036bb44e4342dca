package inbound

import (
	"context"
	"time"
)

// backoff doubles a wait from Options.MinBackoff to MaxBackoff: the one
// retry rhythm of the journal's opening, history reads and reactions.
type backoff struct{ min, max, next time.Duration }

func (in *Inbound) newBackoff() *backoff {
	return &backoff{min: in.opts.MinBackoff, max: in.opts.MaxBackoff, next: in.opts.MinBackoff}
}

// peek is the wait the next call of timer or wait takes.
func (b *backoff) peek() time.Duration { return b.next }

// timer starts the next wait and returns its channel.
func (b *backoff) timer() <-chan time.Time {
	d := b.next
	b.next = min(2*b.next, b.max)
	return time.After(d)
}

// wait sleeps the next wait; false when ctx ended first.
func (b *backoff) wait(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-b.timer():
		return true
	}
}

func (b *backoff) reset() { b.next = b.min }
