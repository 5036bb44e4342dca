package telegram

import (
	"context"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/spec"
)

// paceBurst is how many requests may go at once before the per-second
// pace applies: a new session's first turn is three (its root line,
// its topic, its first message), so it appears without a wait; the
// service allows "short bursts" without saying how long.
const paceBurst = 3

// window is one limit of the chat's budget: at most n requests in any
// span. It counts what it has seen finish (done) and what is in flight:
// the service counts a request when it arrives, which is after it was
// sent and before its answer came back, so a request sent only once
// span has passed since an earlier one's answer never arrives inside
// that one's span, whatever the latency of either.
type window struct {
	n        int
	span     time.Duration
	inflight int
	done     []time.Time // finish times, oldest first, the last n at most
}

// windowWait is the pacing decision: how long from now until one more
// request fits in a window of n per span, given the finish times of the
// earlier ones (oldest first) and how many are in flight. ok is false
// when n are in flight: only an answer makes room.
func windowWait(done []time.Time, inflight, n int, span time.Duration, now time.Time) (wait time.Duration, ok bool) {
	if inflight >= n {
		return 0, false
	}
	first := len(done)
	for first > 0 && done[first-1].Add(span).After(now) {
		first--
	}
	recent := done[first:]
	// expire: how many of the recent must leave the window first.
	expire := len(recent) + inflight - n + 1
	if expire <= 0 {
		return 0, true
	}
	return recent[expire-1].Add(span).Sub(now), true
}

// budgetOf is the chat's two limits for postsPerMinute requests a
// minute: the minute's own, and a per-second pace of max(1, it/20) a
// second (the service's documented 1 a second per chat at the default
// 20 a minute) with bursts of paceBurst. The chat is a supergroup, so
// both apply.
func budgetOf(postsPerMinute int) []window {
	if postsPerMinute <= 0 {
		postsPerMinute = spec.DefaultPostsPerMinute
	}
	perSecond := max(1, postsPerMinute/20)
	return []window{
		{n: postsPerMinute, span: time.Minute},
		{n: paceBurst, span: paceBurst * time.Second / time.Duration(perSecond)},
	}
}

// pacer holds back the requests that post or edit in the chat until the
// chat's budget has room for them. Its invariant: never more requests in
// flight or finished within any window's span than that window's n.
type pacer struct {
	mu      sync.Mutex
	windows []window
	changed chan struct{} // closed when a request finishes
}

func newPacer(postsPerMinute int) *pacer {
	return &pacer{windows: budgetOf(postsPerMinute), changed: make(chan struct{})}
}

// acquire waits until one more request fits every window, counts it in
// flight and returns the func to call once its answer came back (or it
// failed), or ctx's error, counting nothing.
func (p *pacer) acquire(ctx context.Context) (release func(), err error) {
	for {
		p.mu.Lock()
		wait, ok := p.waitLocked(time.Now())
		if ok && wait <= 0 {
			for i := range p.windows {
				p.windows[i].inflight++
			}
			p.mu.Unlock()
			return sync.OnceFunc(p.release), nil
		}
		changed := p.changed
		p.mu.Unlock()
		if err := sleepUntil(ctx, wait, ok, changed); err != nil {
			return nil, err
		}
	}
}

// sleepUntil returns after wait (only when timed), once changed is
// closed, or with ctx's error.
func sleepUntil(ctx context.Context, wait time.Duration, timed bool, changed <-chan struct{}) error {
	var timeout <-chan time.Time
	if timed {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
	case <-changed:
	}
	return nil
}

// waitLocked is the longest wait of the windows; ok false while one of
// them is full of requests in flight.
func (p *pacer) waitLocked(now time.Time) (time.Duration, bool) {
	var longest time.Duration
	for _, w := range p.windows {
		wait, ok := windowWait(w.done, w.inflight, w.n, w.span, now)
		if !ok {
			return 0, false
		}
		longest = max(longest, wait)
	}
	return longest, true
}

// release counts a request finished now and wakes the waiters.
func (p *pacer) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for i := range p.windows {
		w := &p.windows[i]
		w.inflight--
		w.done = append(w.done, now)
		if len(w.done) > w.n {
			w.done = append(w.done[:0], w.done[len(w.done)-w.n:]...)
		}
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// BudgetTime is the least time from the first to the last of n requests
// that the budget of postsPerMinute allows (each sent the moment it
// fits, answered at once): what a measured pace is held against.
func BudgetTime(n, postsPerMinute int) time.Duration {
	ws := budgetOf(postsPerMinute)
	var t time.Duration
	start := time.Unix(0, 0)
	for i := range n {
		var wait time.Duration
		for _, w := range ws {
			d, _ := windowWait(w.done, 0, w.n, w.span, start.Add(t))
			wait = max(wait, d)
		}
		if i > 0 {
			t += wait
		}
		for j := range ws {
			ws[j].done = append(ws[j].done, start.Add(t))
		}
	}
	return t
}
