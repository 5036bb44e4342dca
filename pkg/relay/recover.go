package relay

import (
	"context"
	"fmt"
	"os"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
)

// compactAt is the journal size, in records, past which start-up rewrites
// it without what no longer matters.
const compactAt = 20000

// recover rebuilds the state from the journal, then compacts the journal
// when it has grown past compactAt records and most of them are about
// messages gone from outbox/ and sent/ (sent/ is pruned after SentKeep).
// The journal is read once; a second time only when it is rewritten.
func (r *Relay) recover(ctx context.Context) (*state, error) {
	live, liveErr := r.liveIDs(ctx)
	st := newState()
	n, kept := 0, 0
	err := r.opts.Journal.Replay(ctx, func(rec bus.Record) error {
		st.apply(rec)
		n++
		if liveErr == nil && keep(rec, live) {
			kept++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal %v cannot be read whole, so nothing is posted until it is repaired: %w", r.opts.Journal, err)
	}
	if n < compactAt || liveErr != nil || kept > n/2 {
		return st, nil
	}
	var recs []bus.Record
	err = r.opts.Journal.Replay(ctx, func(rec bus.Record) error {
		if keep(rec, live) {
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		return st, nil // not compacted this time; nothing lost
	}
	if err := r.opts.Journal.Rewrite(ctx, recs); err != nil {
		r.opts.Log.Error(err, "compacting the relay journal; it stays as it was")
		return st, nil
	}
	r.opts.Log.Info("relay journal compacted", "records", n, "kept", len(recs))
	st = newState()
	for _, rec := range recs {
		st.apply(rec)
	}
	return st, nil
}

// keep: every record of a message still in outbox/ or sent/, and what
// made each session's root, thread (of every generation: the done
// records carry the texts a place made again is named with) and archive.
func keep(rec bus.Record, live map[string]bool) bool {
	if live[rec.ID] {
		return true
	}
	if _, _, place := bus.ParsePlacePart(rec.Part); place || rec.Part == bus.PartArchive {
		return rec.Op == bus.OpDone
	}
	return false
}

// liveIDs are the ids of the messages in outbox/ and sent/.
func (r *Relay) liveIDs(ctx context.Context) (map[string]bool, error) {
	live := map[string]bool{}
	for _, dir := range []string{r.opts.Bus.Outbox, r.opts.Bus.Sent} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".json"); ok {
				live[id] = true
			}
		}
	}
	if err := r.opts.Journal.Live(ctx, live); err != nil {
		return nil, err
	}
	return live, nil
}
