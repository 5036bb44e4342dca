package inbound

import (
	"context"
	"fmt"

	"gjc.dev/reconciler/pkg/bus"
)

// compactAbove is how many records a journal may hold at start before it
// is rewritten without the ones aged out.
const compactAbove = 10_000

// open makes the journal usable, retrying with back-off while it cannot
// be; false when the Inbound stopped first. Until it succeeds nothing
// lands (Receive waits), so nothing is landed twice on a journal that
// could not be read.
func (in *Inbound) open(ctx context.Context) bool {
	b := in.newBackoff()
	for {
		err := in.recover()
		if err == nil {
			in.setError("")
			return true
		}
		in.opts.Log.Error(err, "the inbound journal cannot be used; no reply lands until it is repaired")
		in.setError(err.Error())
		if !b.wait(ctx) {
			return false
		}
	}
}

// recover rebuilds what the journal says, completes every landing whose
// record is durable, removes the stages of those whose record is not, and
// opens the journal for appending.
func (in *Inbound) recover() error {
	d := in.opts.Bus
	if err := bus.EnsureDirs(d); err != nil {
		return err
	}
	path := d.InboundJournalPath()
	seen := map[string]seenMsg{}
	cursors := map[string]bus.InboundRecord{}
	reacted := map[string]bool{}
	asks := map[string]*askState{}
	records := 0
	err := bus.ReplayInboundJournal(path, func(r bus.InboundRecord) error {
		records++
		switch r.Op {
		case bus.OpLanded:
			seen[r.ID] = seenMsg{rec: r}
		case bus.OpReacted:
			reacted[r.ID] = true
		case bus.OpCursor:
			cursors[r.Place] = r
		default:
			replayAsk(asks, r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	staged, err := bus.ListStagedInbox(d)
	if err != nil {
		return err
	}
	named := map[bus.StagedInbox]bool{}
	for _, s := range seen {
		named[bus.StagedInbox{Session: s.rec.Session, File: s.rec.File}] = true
	}
	for _, a := range asks {
		if a.decided != nil {
			named[bus.StagedInbox{Session: a.decided.Session, File: a.decided.File}] = true
		}
	}
	for _, s := range staged {
		if !named[s] {
			if err := bus.RemoveStagedInbox(d, s); err != nil {
				return err
			}
			in.opts.Log.Info("removed the stage of a reply that never landed; the service delivers it again", "session", s.Session, "file", s.File)
		}
	}
	filesStaged, err := bus.ListStagedInboxFiles(d)
	if err != nil {
		return err
	}
	for _, s := range filesStaged {
		if !named[s] {
			if err := bus.RemoveStagedInboxFiles(d, s); err != nil {
				return err
			}
			in.opts.Log.Info("removed the files of a reply that never landed; the service delivers it again", "session", s.Session, "file", s.File)
		}
	}
	for id, s := range seen {
		if err := in.publish(s.rec.Session, s.rec.File); err != nil {
			return fmt.Errorf("completing the landing of %s: %w", id, err)
		}
		s.published = true
		seen[id] = s
	}
	now := in.opts.Now()
	cutoff := now.Add(-2 * in.opts.Window).UnixMilli()
	unreacted := map[string]bus.InboundRecord{}
	for id, s := range seen {
		if !reacted[id] && s.rec.At >= now.Add(-in.opts.Window).UnixMilli() {
			unreacted[id] = s.rec
		}
	}
	for id, a := range asks {
		if a.decided == nil {
			continue
		}
		if err := in.publish(a.decided.Session, a.decided.File); err != nil {
			return fmt.Errorf("completing the decision of ask %s: %w", id, err)
		}
		a.published = true
	}
	if records > compactAbove {
		if err := compact(path, seen, reacted, cursors, asks, cutoff); err != nil {
			return err
		}
	}
	j, err := bus.OpenInboundJournal(path)
	if err != nil {
		return err
	}
	in.mu.Lock()
	in.j, in.seen, in.cursors, in.unreacted, in.asks = j, seen, cursors, unreacted, asks
	in.health.Unreacted = len(unreacted)
	in.health.Asks.Open = openAsks(asks)
	in.mu.Unlock()
	return nil
}

// compact rewrites the journal with what is still needed: landed ids
// younger than cutoff (a history read never goes back that far), their
// reactions, and the latest cursor of each place. What it drops is
// dropped from the maps too.
func compact(path string, seen map[string]seenMsg, reacted map[string]bool, cursors map[string]bus.InboundRecord, asks map[string]*askState, cutoff int64) error {
	recs := compactAsks(asks, cutoff)
	for id, s := range seen {
		if s.rec.At < cutoff {
			delete(seen, id)
			continue
		}
		recs = append(recs, s.rec)
		if reacted[id] {
			recs = append(recs, bus.InboundRecord{Op: bus.OpReacted, ID: id, Place: s.rec.Place, At: s.rec.At})
		}
	}
	for place, c := range cursors {
		if c.At < cutoff {
			delete(cursors, place)
			continue
		}
		recs = append(recs, c)
	}
	return bus.RewriteInboundJournal(path, recs)
}
