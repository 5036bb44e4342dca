package bus

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Many appenders at once, each waiting for its own records: every record
// is in the journal exactly once and whole. Wakes that find nothing to
// write (an appender's poke after the syncer took its group) happen here
// all the time; a buffer handed out twice showed as mangled lines and a
// race.
func TestJournalConcurrentAppendsAllLand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				rec := Record{Op: OpAttempt, ID: fmt.Sprintf("m%d-%d", w, i), Part: "0", Session: "s", Text: "some text to copy", Parts: 1, At: 1}
				if err := j.Append(context.Background(), rec); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	if err := ReplayJournal(path, func(r Record) error { seen[r.ID]++; return nil }); err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(seen) != writers*each {
		t.Fatalf("%d records in the journal, want %d", len(seen), writers*each)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("record %s is there %d times", id, n)
		}
	}
}
