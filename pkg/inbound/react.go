package inbound

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
)

// reactLoop adds the 👀 owed to each landed message, oldest first, one at
// a time, and records it. A reaction the service refuses for good is
// recorded too (and logged): it would never succeed. Any other failure
// is retried with back-off; the message is landed whatever happens here.
func (in *Inbound) reactLoop(ctx context.Context) {
	b := in.newBackoff()
	for {
		rec, ok := in.nextUnreacted()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-in.reacts:
				continue
			}
		}
		err := in.opts.Service.React(ctx, rec.Place, rec.ID)
		if ctx.Err() != nil {
			return
		}
		var perm *PermanentError
		if err != nil && !errors.As(err, &perm) {
			in.opts.Log.Info("adding the reaction failed; trying again", "message", rec.ID, "err", err.Error(), "in", b.peek().String())
			if !b.wait(ctx) {
				return
			}
			continue
		}
		if perm != nil {
			in.opts.Log.Error(err, "the reaction cannot be added; the message is landed without it", "message", rec.ID)
		}
		b.reset()
		in.mu.Lock()
		aerr := in.appendLocked(ctx, bus.InboundRecord{Op: bus.OpReacted, ID: rec.ID, Place: rec.Place, At: rec.At})
		if aerr == nil {
			delete(in.unreacted, rec.ID)
			in.health.Unreacted = len(in.unreacted)
			in.changed()
		}
		in.mu.Unlock()
		if aerr != nil && ctx.Err() == nil {
			// Reacting again later is harmless: the service takes a
			// repeat as success.
			in.opts.Log.Error(aerr, "recording a reaction")
			if !b.wait(ctx) {
				return
			}
		}
	}
}

func (in *Inbound) nextUnreacted() (bus.InboundRecord, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.unreacted) == 0 {
		return bus.InboundRecord{}, false
	}
	recs := make([]bus.InboundRecord, 0, len(in.unreacted))
	for _, r := range in.unreacted {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, func(a, b bus.InboundRecord) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return compareIDs(a.ID, b.ID)
	})
	return recs[0], true
}

// compareIDs orders service ids: Discord snowflakes and Slack ts are
// decimal, so the shorter is the smaller, then bytewise.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}
