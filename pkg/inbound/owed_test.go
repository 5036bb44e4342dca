package inbound

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
)

// publishLog records the order in which replies were published.
type publishLog struct {
	mu  sync.Mutex
	ids []string
}

func (p *publishLog) step(step, id string) {
	if step == StepPublished {
		p.mu.Lock()
		p.ids = append(p.ids, id)
		p.mu.Unlock()
	}
}

func (p *publishLog) order() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ids)
}

// startOwed starts an Inbound over r whose retries wait long enough that
// a reply received right after the fault clears would land before the
// retry, were it not held behind the owed one.
func (r *rig) startOwed(log *publishLog) {
	r.t.Helper()
	in := New(Options{
		Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1", "T2": "s2"}},
		Authorized: []string{"alice"}, Log: testr.New(r.t), MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond,
		Step: log.step,
	})
	if err := in.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.in = in
	r.t.Cleanup(func() { _ = in.Stop(context.Background()) })
}

func (r *rig) receiveErr(e Event) (Outcome, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return r.in.Receive(ctx, e)
}

// A reply that cannot land (its session's inbox cannot be written, as on
// a full disk) lands on its own once it can, with no reconnect and no
// redelivery, exactly once; a later reply of the same session lands after
// it, never before; another session's is not held up; and the failure
// stays in Health until the owed reply landed, whatever landed meanwhile.
func TestOwedReplyLandsOnItsOwnInOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		block func(r *rig) (unblock func())
		// landed: whether the blocked reply counts as landed (its record
		// is durable, only its rename failed).
		landed bool
	}{
		{"the inbox cannot be written", func(r *rig) func() {
			// A file where the session's directory goes: every write
			// there fails, as on a full disk, whoever runs the test.
			p := filepath.Join(r.d.Inbox, "s1")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}, false},
		{"the file cannot be renamed into place", func(r *rig) func() {
			name, err := bus.InboxFileName(bus.InboxMessage{ID: "100", TS: bus.InboxTime(ev("100", "", "").Time)})
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(r.d.Inbox, "s1", name)
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			if err := bus.EnsureDirs(r.d); err != nil {
				t.Fatal(err)
			}
			unblock := c.block(r)
			log := &publishLog{}
			r.startOwed(log)

			a, b, other := ev("100", "T1", "alice"), ev("200", "T1", "alice"), ev("300", "T2", "alice")
			if _, err := r.receiveErr(a); err == nil {
				t.Fatalf("the blocked reply landed")
			}
			if h := r.in.Health(); (h.Landed == 1) != c.landed {
				t.Fatalf("the blocked reply: health = %+v, want it recorded as landed: %v", h, c.landed)
			}
			if _, err := r.receiveErr(b); err == nil {
				t.Fatalf("a later reply of the same session landed before the owed one")
			}
			if o := r.receive(other); o != Landed {
				t.Fatalf("another session's reply: %v", o)
			}
			if h := r.in.Health(); h.Owed != 2 || h.Error == "" {
				t.Fatalf("while blocked, health = %+v; want 2 owed and the error kept", h)
			}

			unblock()
			waitUntil(t, "the owed replies, on their own", func() bool { return r.in.Health().Owed == 0 })
			if got, want := log.order(), []string{"300", "100", "200"}; !slices.Equal(got, want) {
				t.Fatalf("published in the order %v, want %v", got, want)
			}
			if n := len(r.files()); n != 3 {
				t.Fatalf("inbox = %v", r.files())
			}
			if h := r.in.Health(); h.Landed != 3 || h.Duplicates != 0 || h.Error != "" {
				t.Errorf("after the retry, health = %+v", h)
			}
			for _, e := range []Event{a, b} {
				if o := r.receive(e); o != Duplicate {
					t.Errorf("%s delivered again: %v, want a duplicate", e.ID, o)
				}
			}
			r.svc.mu.Lock()
			calls := r.svc.calls
			r.svc.mu.Unlock()
			if calls > 2 {
				t.Errorf("history read %d times, not only once per thread at start: the retry is no history read", calls)
			}
		})
	}
}

// A reply found by a history read waits behind an earlier one of its
// session that could not land, and the thread's cursor does not move
// past it: once the earlier one lands, both are in the inbox, in order,
// and the cursor stands at the later one.
func TestHistoryWaitsBehindAnOwedReply(t *testing.T) {
	r := newRig(t)
	if err := bus.EnsureDirs(r.d); err != nil {
		t.Fatal(err)
	}
	a, b := ev("100", "T1", "alice"), ev("200", "T1", "alice")
	// A directory where a's stage goes: only a cannot be written.
	name, err := bus.InboxFileName(bus.InboxMessage{ID: a.ID, TS: bus.InboxTime(a.Time)})
	if err != nil {
		t.Fatal(err)
	}
	stage := filepath.Join(r.d.Inbox, "s1", "."+name+".tmp")
	if err := os.MkdirAll(stage, 0o700); err != nil {
		t.Fatal(err)
	}
	log := &publishLog{}
	r.startOwed(log)
	if _, err := r.receiveErr(a); err == nil {
		t.Fatal("the blocked reply landed")
	}
	r.svc.add(b) // b is only in the history: its live event was missed
	r.in.Connected()
	waitUntil(t, "the history read to hold b back", func() bool { return r.in.Health().Owed == 2 })
	r.in.mu.Lock()
	cur, moved := r.in.cursors["T1"]
	r.in.mu.Unlock()
	if moved {
		t.Fatalf("the cursor moved to %s past the reply that did not land", cur.ID)
	}
	if err := os.Remove(stage); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "both replies", func() bool { return r.in.Health().Owed == 0 && len(r.files()) == 2 })
	if got, want := log.order(), []string{"100", "200"}; !slices.Equal(got, want) {
		t.Fatalf("published in the order %v, want %v", got, want)
	}
	r.in.Connected()
	waitUntil(t, "the cursor at b", func() bool {
		r.in.mu.Lock()
		defer r.in.mu.Unlock()
		return r.in.cursors["T1"].ID == b.ID
	})
	if h := r.in.Health(); h.Landed != 2 {
		t.Errorf("health = %+v", h)
	}
}
