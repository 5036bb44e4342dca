package relay

import (
	"fmt"
	"sync"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// TestDoneIsDurableBeforeTheFileLeaves: a done record is written with the
// next attempt or by the finisher, never after its message left the
// outbox. When the relay says a message is finished, the journal file on
// disk holds a done record for each of its parts, the last message of a
// burst (no attempt after it to carry its done) included.
func TestDoneIsDurableBeforeTheFileLeaves(t *testing.T) {
	h := newHarness(t, newFakePoster())
	var mu sync.Mutex
	var missing []string
	finished := 0
	h.finished = func(id string) {
		done := map[string]bool{}
		if err := bus.ReplayJournal(h.dirs.JournalPath(), func(rec bus.Record) error {
			if rec.Op == bus.OpDone && rec.ID == id {
				done[rec.Part] = true
			}
			return nil
		}); err != nil {
			t.Errorf("reading the journal: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		finished++
		if !done["0"] {
			missing = append(missing, id)
		}
	}
	h.start()
	const n = 20
	for i := range n {
		h.send(bus.Message{ID: fmt.Sprintf("m%02d", i), Session: "s", Text: fmt.Sprint("burst ", i)})
	}
	h.waitFor("the burst posted and moved", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return finished >= n
	})
	mu.Lock()
	defer mu.Unlock()
	if len(missing) > 0 {
		t.Fatalf("left the outbox before their done record was on disk: %v", missing)
	}
}
