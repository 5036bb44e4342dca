package relay

import (
	"fmt"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// Twenty rapid edits of one message reach the service as at most one
// request a second, the last content last; each replacing the first
// message, or each the one before it (a chain, whose coalesced links
// must still lead the next edit to the same message). A relay stopped in
// the middle and started again (the journal as it was) loses nothing:
// the last content lands, every message leaves the outbox, and no part
// is posted anew.
func TestRapidEditsAreCoalesced(t *testing.T) {
	for _, tc := range []struct {
		name    string
		chained bool
		restart bool
	}{
		{"each replaces the first", false, false},
		{"each replaces the one before", true, false},
		{"stopped and started in the middle", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakePoster()
			h := newHarness(t, f)
			h.start()
			h.send(bus.Message{ID: "00", Session: "s", Text: "progress 0"})
			h.waitFor("the first message", h.outboxEmpty)
			thread := f.sessionThread("s")
			last := ""
			for i := 1; i <= 20; i++ {
				replaces := "00"
				if tc.chained {
					replaces = fmt.Sprintf("%02d", i-1)
				}
				last = fmt.Sprintf("progress %d", i)
				h.send(bus.Message{ID: fmt.Sprintf("%02d", i), Session: "s", Text: last, Replaces: replaces})
				if tc.restart && i == 10 {
					h.waitFor("an edit", func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.edited) > 0 })
					h.stop()
					h.start()
				}
			}
			h.waitFor("every edit", h.outboxEmpty)
			got := f.texts(thread)
			f.mu.Lock()
			defer f.mu.Unlock()
			calls := f.edited
			if len(calls) == 0 || calls[len(calls)-1].text != last {
				t.Fatalf("edits %+v, want the last %q last", calls, last)
			}
			for i, c := range calls {
				// A restart forgets when the last edit was: the gap holds
				// within one relay's run.
				if i > 0 && c.at.Sub(calls[i-1].at) < EditGap && !tc.restart {
					t.Errorf("edit %d came %v after the one before, under %v", i, c.at.Sub(calls[i-1].at), EditGap)
				}
			}
			if len(calls) > 4 {
				t.Errorf("%d edit requests for 20 rapid edits: not coalesced", len(calls))
			}
			if len(got) != 1 || f.edits[f.places[thread][0].id] != last {
				t.Errorf("thread holds %q (edited to %q): want the one message, edited to %q", got, f.edits[f.places[thread][0].id], last)
			}
		})
	}
}
