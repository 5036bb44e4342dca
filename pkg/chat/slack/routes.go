package slack

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// methodPostMessage is the one method paced ahead of any 429: Slack lets
// an app post about one message a second to a channel, with short bursts.
const methodPostMessage = "chat.postMessage"

// routes holds, per Web API method, when the next call may go out. It is
// the Poster's, so every session posting through it shares it: a 429 one
// session met holds back the others, instead of each finding the limit
// on its own with a 429 of its own.
type routes struct {
	interval time.Duration // pacing of chat.postMessage; <= 0 none
	burst    int           // calls that may go at once after a quiet spell

	mu        sync.Mutex
	notBefore map[string]time.Time // by method, from a 429's Retry-After
	tat       time.Time            // chat.postMessage's pacing (see slot)
}

func newRoutes(interval time.Duration, burst int) *routes {
	return &routes{interval: interval, burst: max(burst, 1), notBefore: map[string]time.Time{}}
}

// slot is the pacing decision, as a generic cell rate algorithm: tat is
// the theoretical time of the next call at a steady rate of one per
// interval, and a call may run up to burst-1 intervals ahead of it. It
// returns when a call asked at now may go and the tat after it went.
func slot(now, tat time.Time, interval time.Duration, burst int) (at, next time.Time) {
	if interval <= 0 {
		return now, tat
	}
	at = tat.Add(-time.Duration(burst-1) * interval)
	if at.Before(now) {
		at = now
	}
	if tat.Before(at) {
		tat = at
	}
	return at, tat.Add(interval)
}

// wait blocks until method may be called, or ctx ends: then nothing was
// sent, and the error says how long was left to wait.
func (r *routes) wait(ctx context.Context, method string) error {
	for {
		r.mu.Lock()
		now := time.Now()
		at := r.notBefore[method]
		if method == methodPostMessage {
			paced, next := slot(now, r.tat, r.interval, r.burst)
			if paced.After(at) {
				at = paced
			}
			if !at.After(now) {
				r.tat = next
			}
		}
		r.mu.Unlock()
		left := at.Sub(now)
		if left <= 0 {
			return nil
		}
		// Woken, it looks again: a 429 meanwhile may have moved the time
		// on, and another waiter may have taken the slot.
		t := time.NewTimer(left)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return &waitEnded{method: method, left: left, err: ctx.Err()}
		}
	}
}

// waitEnded is a call that never went out: its context ended while it
// waited for its method's rate limit. classify makes it RateLimited.
type waitEnded struct {
	method string
	left   time.Duration
	err    error
}

func (w *waitEnded) Error() string {
	return fmt.Sprintf("%s not called: waiting %s more for its rate limit: %v", w.method, w.left.Round(time.Millisecond), w.err)
}

func (w *waitEnded) Unwrap() error { return w.err }

// limited records a 429 on method: no call to it before after from now.
// After it chat.postMessage goes at the steady rate, its burst spent, so
// the calls held back do not all go at once into the same limit.
func (r *routes) limited(method string, after time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	until := time.Now().Add(after)
	if until.After(r.notBefore[method]) {
		r.notBefore[method] = until
	}
	if method == methodPostMessage && r.interval > 0 {
		if spent := until.Add(time.Duration(r.burst-1) * r.interval); spent.After(r.tat) {
			r.tat = spent
		}
	}
}
