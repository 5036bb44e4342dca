package inbound

import "gjc.dev/reconciler/pkg/bus"

// replayAsk folds one of an ask's records into asks. A decision or an
// outcome of an ask the journal does not hold (its ask record compacted
// away, or never written) is dropped: nothing can click it any more.
func replayAsk(asks map[string]*askState, r bus.InboundRecord) {
	switch r.Op {
	case bus.OpAsk:
		if asks[r.ID] == nil {
			asks[r.ID] = &askState{rec: r}
		}
	case bus.OpDecided:
		if a := asks[r.ID]; a != nil && a.decided == nil {
			a.decided = &r
		}
	case bus.OpOutcome:
		if a := asks[r.ID]; a != nil && a.decided != nil {
			a.outcome = true
		}
	}
}

// openAsks counts the asks still waiting for a decision.
func openAsks(asks map[string]*askState) int64 {
	var n int64
	for _, a := range asks {
		if a.decided == nil {
			n++
		}
	}
	return n
}

// compactAsks are the records a compacted journal keeps of the asks: an
// undecided ask whatever its age (it may still be clicked, and must
// expire), a decided one until its decision is older than cutoff (a
// click after that is answered as on no ask of ours); the others are
// dropped from asks too.
func compactAsks(asks map[string]*askState, cutoff int64) []bus.InboundRecord {
	var recs []bus.InboundRecord
	for id, a := range asks {
		if a.decided != nil && a.decided.At < cutoff && a.outcome {
			delete(asks, id)
			continue
		}
		recs = append(recs, a.rec)
		if a.decided != nil {
			recs = append(recs, *a.decided)
			if a.outcome {
				recs = append(recs, bus.InboundRecord{Op: bus.OpOutcome, ID: id, Place: a.rec.Place, At: a.decided.At})
			}
		}
	}
	return recs
}
