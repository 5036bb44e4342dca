package reconcile

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// One worker per name at a time; an add during work runs it once more.
func TestQueueOneWorkerPerName(t *testing.T) {
	var running, maxRunning, runs atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	q := newQueue(func(string) {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		runs.Add(1)
		started <- struct{}{}
		<-release
		running.Add(-1)
	})
	q.add("a")
	<-started
	for range 5 {
		q.add("a") // coalesced into one rerun
	}
	release <- struct{}{}
	<-started
	release <- struct{}{}
	q.shutdown()
	if got := runs.Load(); got != 2 {
		t.Errorf("runs = %d, want 2 (the first and one coalesced rerun)", got)
	}
	if got := maxRunning.Load(); got != 1 {
		t.Errorf("%d workers ran for one name at once", got)
	}
}

func TestQueueNamesInParallel(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	both := make(chan struct{})
	q := newQueue(func(string) {
		wg.Done()
		<-both // each waits for the other: only parallel workers finish
	})
	q.add("a")
	q.add("b")
	done := make(chan struct{})
	go func() { wg.Wait(); close(both); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("names did not run in parallel")
	}
	q.shutdown()
}
