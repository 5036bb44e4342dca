package relay

import "gjc.dev/reconciler/pkg/bus"

// JournalStats returns what the relay's journal made durable since the
// relay opened it (records appended, syncs): the benchmarks divide the
// syncs by the messages posted. Zero before the journal is open.
func (r *Relay) JournalStats() bus.JournalStats {
	r.mu.Lock()
	j := r.j
	r.mu.Unlock()
	if j == nil {
		return bus.JournalStats{}
	}
	return j.Stats()
}
