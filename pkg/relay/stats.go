package relay

import (
	"context"
	"errors"
	"time"
)

// Health is the relay's figures now (state.json's relay).
func (r *Relay) Health() Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.health
	h.Pending = len(r.known) + len(r.later)
	h.OldestPendingAt = time.Time{}
	for _, seen := range r.known {
		if h.OldestPendingAt.IsZero() || seen.Before(h.OldestPendingAt) {
			h.OldestPendingAt = seen
		}
	}
	h.Failed = r.failed
	h.Settled = r.settled
	h.Blocked = nil
	if b := r.blocks[""]; b != nil {
		h.Blocked = b // the channel check first: it holds back everything
	} else if b := r.blocks[busBlock]; b != nil {
		h.Blocked = b // so does a bus that cannot be trusted
	} else {
		for _, b := range r.blocks {
			h.Blocked = b
			break
		}
	}
	if h.RateLimitedUntil.Before(time.Now()) {
		h.RateLimitedUntil = time.Time{}
	}
	return h
}

func (r *Relay) changed() { r.opts.Changed() }

// settle marks the relay settled (Health.Settled), once.
func (r *Relay) settle() {
	r.mu.Lock()
	was := r.settled
	r.settled = true
	r.mu.Unlock()
	if !was {
		r.changed()
	}
}

// posted counts a confirmed request.
func (r *Relay) posted(took time.Duration) {
	r.mu.Lock()
	r.health.Posted++
	r.health.PostSeconds += took.Seconds()
	r.health.LastPostAt = time.Now()
	r.mu.Unlock()
	r.changed()
}

// filter counts a message the verbosity left out (Health.Filtered): it
// leaves the outbox for sent/ unposted, and this count is its word.
func (r *Relay) filter(id string) {
	r.mu.Lock()
	r.health.Filtered++
	r.mu.Unlock()
	r.opts.Log.V(1).Info("message left out by verbosity lean; moved to sent/ unposted", "id", id)
}

// setBlock records why session (or, for "", the channel check) cannot
// post; nil clears it.
func (r *Relay) setBlock(session string, b *Block) {
	r.mu.Lock()
	prev := r.blocks[session]
	if b == nil {
		delete(r.blocks, session)
	} else {
		r.blocks[session] = b
	}
	r.mu.Unlock()
	if (prev == nil) != (b == nil) || (b != nil && *prev != *b) {
		r.changed()
	}
}

func (r *Relay) clearBlock(session string) { r.setBlock(session, nil) }

// retryWait waits before a request that failed without being accepted
// is tried again: a rate limit's retry_after (no earlier), a block's or
// an unknown failure's back-off. false when the relay stops meanwhile.
func (r *Relay) retryWait(ctx context.Context, session string, err error, b *backoff) bool {
	var e *Error
	errors.As(err, &e)
	switch KindOf(err) {
	case RateLimited:
		until := time.Now().Add(e.RetryAfter)
		r.mu.Lock()
		r.health.RateLimitWaits++
		if until.After(r.health.RateLimitedUntil) {
			r.health.RateLimitedUntil = until
		}
		if e.Global && until.After(r.globalRL) {
			r.globalRL = until
		}
		r.mu.Unlock()
		r.changed()
		r.opts.Log.V(1).Info("rate-limited; waiting", "session", session, "retryAfter", e.RetryAfter.String(), "global", e.Global)
		return sleep(ctx, time.Until(until))
	case Blocked:
		reason := ReasonRelayBlocked
		if e.Reason != "" {
			reason = e.Reason
		}
		r.setBlock(session, &Block{Reason: reason, Message: err.Error()})
		r.opts.Log.Error(err, "relay blocked; the backlog is kept and retried", "session", session, "reason", reason)
	default:
		r.opts.Log.Info("request failed; retrying", "session", session, "error", err.Error())
	}
	return b.wait(ctx)
}

// waitGlobal holds a request back while a global rate limit lasts.
func (r *Relay) waitGlobal(ctx context.Context) error {
	r.mu.Lock()
	until := r.globalRL
	r.mu.Unlock()
	if !sleep(ctx, time.Until(until)) {
		return errStopped
	}
	return nil
}
