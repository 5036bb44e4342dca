package inbound

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// historyLoop reads every open thread's history once at start, again
// on every Connected, so that what was sent while the daemon was down or
// disconnected lands, and every Options.Sweep (sweep.go), so that what a
// connection that looks healthy did not deliver lands too. A read that
// fails is tried again with back-off.
func (in *Inbound) historyLoop(ctx context.Context) {
	if len(in.authorized) == 0 {
		return // nobody's replies land: there is nothing to look for
	}
	select {
	case <-in.opts.Sessions.Loaded():
	case <-ctx.Done():
		return
	}
	var sweeps <-chan time.Time
	if in.opts.Sweep > 0 {
		t := time.NewTicker(in.opts.Sweep)
		defer t.Stop()
		sweeps = t.C
	}
	b := in.newBackoff()
	sweep := false
	for {
		missed, err := in.readHistory(ctx, sweep)
		if ctx.Err() != nil {
			return
		}
		if sweep {
			missed += in.overdue()
		}
		in.missed(missed)
		var retry <-chan time.Time
		if err != nil {
			in.opts.Log.Error(err, "reading the sessions' history; trying again", "in", b.peek().String())
			in.mu.Lock()
			_ = in.failed(err)
			in.mu.Unlock()
			retry = b.timer()
		} else {
			b.reset()
		}
		select {
		case <-ctx.Done():
			return
		case <-in.history:
			sweep = false
		case <-retry:
		case <-sweeps:
			sweep = true
		}
	}
}

// readHistory reads each open thread after its cursor and lands what
// it finds; the cursor then moves to the last message handled. A thread
// whose read fails keeps its cursor, so nothing after it is skipped. A
// sweep's read returns how many replies it landed that the live stream
// should have delivered (missedBy).
func (in *Inbound) readHistory(ctx context.Context, sweep bool) (int, error) {
	since := in.opts.Now().Add(-in.opts.Window)
	var errs []error
	missed := 0
	for _, p := range in.opts.Sessions.OpenPlaces() {
		n, err := in.readPlace(ctx, p.ID, since, sweep)
		missed += n
		if err != nil {
			if ctx.Err() != nil {
				return missed, ctx.Err()
			}
			errs = append(errs, fmt.Errorf("session %s: %w", p.Session, err))
		}
	}
	return missed, errors.Join(errs...)
}

func (in *Inbound) readPlace(ctx context.Context, place string, since time.Time, sweep bool) (int, error) {
	in.mu.Lock()
	cur, hasCursor := in.cursors[place]
	in.mu.Unlock()
	after := ""
	if hasCursor && cur.At >= since.UnixMilli() {
		after = cur.ID
	}
	var last Event
	read, missed := 0, 0
	err := in.opts.Service.History(ctx, place, after, since, func(ev Event) error {
		if ev.Place != place {
			return fmt.Errorf("history of %s returned a message of %s", place, ev.Place)
		}
		o, err := in.land(ctx, ev)
		if err != nil {
			return err
		}
		if o == Landed && in.readLanding(ev, sweep) {
			missed++
		}
		last = ev
		read++
		return nil
	})
	if read > 0 {
		// Every message up to last was handled, even if a later one failed.
		if cerr := in.moveCursor(ctx, place, last); cerr != nil && err == nil {
			err = cerr
		}
	}
	return missed, err
}

func (in *Inbound) moveCursor(ctx context.Context, place string, last Event) error {
	at := last.Time.UnixMilli()
	if at <= 0 {
		at = in.opts.Now().UnixMilli()
	}
	rec := bus.InboundRecord{Op: bus.OpCursor, ID: last.ID, Place: place, At: at}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := bus.ValidateInboundRecord(rec); err != nil {
		return nil // an id the journal cannot hold: read from the window next time
	}
	if err := in.appendLocked(ctx, rec); err != nil {
		return err
	}
	in.cursors[place] = rec
	return nil
}
