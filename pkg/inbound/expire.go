package inbound

import (
	"context"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// expiryLoop decides every ask still undecided at its expiresAt as
// expired, and completes the decisions a failure left unpublished or
// without their outcome, until ctx is done.
func (in *Inbound) expiryLoop(ctx context.Context) {
	// Not before the relay knows its sessions: which are closed decides
	// whether an outcome is posted (completeDecision).
	select {
	case <-ctx.Done():
		return
	case <-in.opts.Sessions.Loaded():
	}
	b := in.newBackoff()
	for {
		next, failed := in.expireDue(ctx)
		var wake <-chan time.Time
		var t *time.Timer
		switch {
		case failed && (next.IsZero() || time.Until(next) > b.peek()):
			wake = b.timer()
		case failed:
			// The next ask falls due before the back-off ends: it is not
			// left to expire late.
			t = time.NewTimer(max(time.Until(next), 0))
			wake = t.C
		case !next.IsZero():
			b.reset()
			t = time.NewTimer(max(time.Until(next), 0))
			wake = t.C
		default:
			b.reset()
		}
		select {
		case <-ctx.Done():
		case <-in.expiry:
		case <-wake:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// expireDue expires the asks due now and completes the incomplete
// decisions; it returns when the next ask is due (zero: none waits) and
// whether anything failed (to be tried again after a back-off).
func (in *Inbound) expireDue(ctx context.Context) (next time.Time, failed bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := in.opts.Now()
	for _, a := range in.asks {
		if a.decided != nil {
			if !a.published || !a.outcome {
				failed = in.completeDecision(a) != nil || failed
			}
			continue
		}
		due := time.UnixMilli(a.rec.At)
		if now.Before(due) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		if err := in.decideLocked(ctx, a, bus.ChoiceExpired, "", "", now); err != nil {
			failed = true
			continue
		}
		in.opts.Log.Info("ask expired undecided", "ask", a.rec.ID, "session", a.rec.Session)
	}
	return next, failed
}
