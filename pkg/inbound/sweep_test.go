package inbound

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
)

// A reply the live connection never delivered lands at the next sweep,
// is counted missed, and the transport is told to reconnect, saying why;
// one the live connection delivered is a duplicate to the sweep, and
// missed nothing. The lag, the reply's age at its landing, is kept.
func TestSweepLandsWhatTheLiveStreamMissed(t *testing.T) {
	r := newRig(t)
	deaf := make(chan string, 4)
	in := New(Options{
		Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}},
		Authorized: []string{"alice"}, Log: testr.New(t), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Sweep: 50 * time.Millisecond, Deaf: func(why string) { deaf <- why },
	})
	if err := in.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.in = in
	t.Cleanup(func() { _ = in.Stop(context.Background()) })

	live := ev("100", "T1", "alice")
	r.svc.add(live)
	if o := r.receive(live); o != Landed && o != Duplicate {
		t.Fatalf("live reply: %v", o)
	}
	// The read at start (no sweep) must not be the one to find it: it
	// takes its copy of the history when called.
	waitUntil(t, "the read at start", func() bool { r.svc.mu.Lock(); defer r.svc.mu.Unlock(); return r.svc.calls > 0 })
	r.svc.add(ev("200", "T1", "alice")) // never delivered live
	select {
	case why := <-deaf:
		if !strings.Contains(why, "1 replies the live connection did not deliver") {
			t.Errorf("reconnect asked for %q", why)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sweep did not ask for a reconnect")
	}
	h := in.Health()
	if h.Missed != 1 || h.Landed != 2 {
		t.Errorf("missed %d, landed %d; want 1 of 2", h.Missed, h.Landed)
	}
	if h.LastLag < time.Hour-time.Minute {
		t.Errorf("lag %v of a reply sent an hour ago", h.LastLag)
	}
	if _, ok := r.files()["s1/"+fileOf(t, r, "200")]; !ok {
		t.Errorf("the missed reply did not land: %v", r.files())
	}
}

// fileOf is the inbox file name a landed reply id got.
func fileOf(t *testing.T, r *rig, id string) string {
	t.Helper()
	r.in.mu.Lock()
	defer r.in.mu.Unlock()
	s, ok := r.in.seen[id]
	if !ok {
		t.Fatalf("%s not landed", id)
	}
	return s.rec.File
}

// A reply is missed only once it is older than the grace when a sweep
// lands it: a younger one may still come over the live connection.
func TestMissedBy(t *testing.T) {
	now := time.Now()
	in := &Inbound{opts: Options{Sweep: 5 * time.Minute, Now: func() time.Time { return now }}}
	for _, tc := range []struct {
		sent time.Time
		want bool
	}{
		{now.Add(-2 * time.Minute), true},
		{now.Add(-time.Minute), true},
		{now.Add(-59 * time.Second), false},
		{now.Add(time.Minute), false},
		{time.Time{}, false},
	} {
		if got := in.missedBy(Event{Time: tc.sent}); got != tc.want {
			t.Errorf("sent %v before now: missed %v, want %v", now.Sub(tc.sent), got, tc.want)
		}
	}
	short := &Inbound{opts: Options{Sweep: 100 * time.Millisecond, Now: func() time.Time { return now }}}
	if !short.missedBy(Event{Time: now.Add(-50 * time.Millisecond)}) {
		t.Error("a sweep of 100ms: a reply 50ms old is not judged missed")
	}
}

// A reply a sweep landed too young to judge is missed at a later sweep
// unless the live connection delivered it meanwhile.
func TestYoungSweptRepliesAreJudgedLater(t *testing.T) {
	now := time.Now()
	in := &Inbound{young: map[string]time.Time{}, heard: map[string]time.Time{}, opts: Options{Sweep: 5 * time.Minute, Now: func() time.Time { return now }}}
	if in.readLanding(Event{ID: "heard", Time: now}, true) || in.readLanding(Event{ID: "lost", Time: now}, false) {
		t.Fatal("a reply just sent is judged missed at once")
	}
	in.heardLive("heard")
	in.heardLive("early") // live first, then a read's landing
	if in.readLanding(Event{ID: "early", Time: now}, true) {
		t.Fatal("a reply heard live judged missed")
	}
	if n := in.overdue(); n != 0 {
		t.Fatalf("%d overdue within the grace", n)
	}
	now = now.Add(2 * time.Minute)
	if n := in.overdue(); n != 1 {
		t.Fatalf("%d overdue after the grace, want the one never heard live", n)
	}
	if n := in.overdue(); n != 0 {
		t.Fatalf("%d overdue again: counted twice", n)
	}
}
