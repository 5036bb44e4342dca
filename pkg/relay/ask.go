package relay

import (
	"context"
	"errors"
	"strconv"

	"gjc.dev/reconciler/pkg/bus"
)

// askPosted hands a posted ask to Options.AskPosted before its file
// leaves the outbox: once it is in sent/ nothing would hand it again, so
// a hook that failed is retried, with back-off, until it took the ask or
// the relay stops (the next start hands it again: every part is done,
// and AskPosted must take an ask twice as once).
func (r *Relay) askPosted(ctx context.Context, m bus.Message, rd Rendered) error {
	if r.opts.AskPosted == nil || len(rd.Parts) == 0 {
		return nil
	}
	ss, _ := r.sessionNow(m.Session, "")
	key := bus.Record{ID: m.ID, Part: strconv.Itoa(len(rd.Parts) - 1)}.Key()
	r.mu.Lock()
	remote, done := r.st.done[key]
	r.mu.Unlock()
	if !done {
		return errors.New("ask " + m.ID + ": its last part is not recorded done")
	}
	b := r.newBackoff()
	for {
		err := r.opts.AskPosted(ctx, m, ss.thread, remote)
		if err == nil {
			return nil
		}
		r.opts.Log.Error(err, "a posted ask could not be handed to the inbound side; retrying", "id", m.ID)
		if !b.wait(ctx) {
			return errStopped
		}
	}
}
