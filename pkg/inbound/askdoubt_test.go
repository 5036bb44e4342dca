package inbound

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
)

// A Decide whose journal append returns an error although the record was
// handed to the journal (its ctx ended: "the records may still become
// durable") must not leave the ask open in memory, where the next click
// would decide it again and a restart publish both decisions.
func TestAppendInDoubtDecidesOnce(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	start := func(step func(string, string)) {
		in := New(Options{
			Bus: r.d, Service: r.svc, Sessions: fakeSessions{places: map[string]string{"T1": "s1"}},
			Authorized: []string{"alice", "bob"}, Log: testr.New(t), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
			Step: step,
		})
		if err := in.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.in = in
		t.Cleanup(func() { _ = in.Stop(context.Background()) })
	}
	start(func(step, id string) {
		if step == StepStaged {
			once.Do(cancel) // the transport's deadline passes while the record is written
		}
	})
	r.posted(askMsg("01JASK", time.Now().Add(time.Hour)), "R1")
	now := time.Now()
	_, err := r.in.Decide(ctx, Click{ID: "c1", Place: "T1", Message: "R1", User: "alice", Name: "Alice", Data: bus.ChoiceData("01JASK", 0), Time: now})
	if err == nil {
		t.Skip("the append won the race with ctx; run again")
	}
	t.Logf("first Decide: %v", err)
	bg, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	v, err := r.in.Decide(bg, Click{ID: "c2", Place: "T1", Message: "R1", User: "bob", Name: "Bob", Data: bus.ChoiceData("01JASK", 1), Time: now.Add(time.Second)})
	t.Logf("second Decide: %+v %v", v, err)
	r.stop()
	start(nil)
	waitUntil(t, "ready", func() bool { return r.in.Health().Asks.Open == 0 })
	time.Sleep(100 * time.Millisecond)
	d := r.decisions() // fatals when the ask is decided twice in the inbox
	t.Logf("decisions %+v", d)
}
