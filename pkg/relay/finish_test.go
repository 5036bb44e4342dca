package relay

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
		on := doneOnDisk(t, h, id+"/0")
		mu.Lock()
		defer mu.Unlock()
		finished++
		if !on {
			missing = append(missing, id)
		}
	}
	h.start()
	// Four sessions: their workers' writes overlap the finisher's.
	const n = 40
	for i := range n {
		h.send(bus.Message{ID: fmt.Sprintf("m%02d", i), Session: fmt.Sprint("s", i%4), Text: fmt.Sprint("burst ", i)})
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

// TestFlushWaitsForADoneAnotherWriteTook: a done record another write
// took (a session's next attempt, here held before it reaches the file)
// is not durable yet: a flush waits for that write, rather than finding
// nothing left to write and letting the message leave the outbox.
func TestFlushWaitsForADoneAnotherWriteTook(t *testing.T) {
	h := newHarness(t, newFakePoster())
	gate := &heldJournal{JournalStore: FileJournal(h.dirs), hold: "m2/0", release: make(chan struct{}), held: make(chan struct{})}
	r := New(Options{Bus: h.dirs, Poster: h.fake, Journal: gate})
	ctx := context.Background()
	if err := r.prepare(ctx); err != nil {
		t.Fatal(err)
	}
	defer r.journal().Close()
	if err := r.record(ctx, bus.Record{ID: "m1", Part: "0", Session: "s"}, bus.OpDone, "remote-1"); err != nil {
		t.Fatal(err)
	}
	attempted := make(chan error, 1)
	go func() {
		attempted <- r.record(ctx, bus.Record{ID: "m2", Part: "0", Session: "s", Text: "x", Parts: 1}, bus.OpAttempt, "")
	}()
	<-gate.held // m2's attempt took m1's done and waits before the file
	released := time.AfterFunc(300*time.Millisecond, func() { close(gate.release) })
	defer released.Stop()
	if err := r.flushDone(ctx); err != nil {
		t.Fatal(err)
	}
	if !doneOnDisk(t, h, "m1/0") {
		t.Fatal("the flush returned before m1's done record was on disk (held in m2's attempt's write)")
	}
	if err := <-attempted; err != nil {
		t.Fatal(err)
	}
}

// heldJournal holds the append carrying hold's attempt until release.
type heldJournal struct {
	JournalStore
	hold    string
	release chan struct{}
	held    chan struct{}
	once    sync.Once
}

func (g *heldJournal) Open(ctx context.Context) (Journal, error) {
	j, err := g.JournalStore.Open(ctx)
	if err != nil {
		return nil, err
	}
	return heldAppends{Journal: j, g: g}, nil
}

type heldAppends struct {
	Journal
	g *heldJournal
}

func (a heldAppends) Append(ctx context.Context, recs ...bus.Record) error {
	for _, rec := range recs {
		if rec.Op == bus.OpAttempt && rec.Key() == a.g.hold {
			a.g.once.Do(func() { close(a.g.held) })
			<-a.g.release
		}
	}
	return a.Journal.Append(ctx, recs...)
}

// doneOnDisk reports whether the journal file holds key's done record.
func doneOnDisk(t *testing.T, h *harness, key string) bool {
	found := false
	if err := bus.ReplayJournal(h.dirs.JournalPath(), func(rec bus.Record) error {
		found = found || rec.Op == bus.OpDone && rec.Key() == key
		return nil
	}); err != nil {
		t.Errorf("reading the journal: %v", err)
	}
	return found
}
