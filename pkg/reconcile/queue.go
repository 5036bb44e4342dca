package reconcile

import (
	"sync"
	"time"
)

// queue runs work keyed by name: one worker per name at a time, names in
// parallel. Adding a name that is being worked on marks it to run once more
// afterwards, so no trigger is lost and none runs twice at once.
type queue struct {
	work func(name string)

	mu      sync.Mutex
	active  map[string]bool
	dirty   map[string]bool
	timers  map[string]*time.Timer
	stopped bool
	wg      sync.WaitGroup
}

func newQueue(work func(string)) *queue {
	return &queue{work: work, active: map[string]bool{}, dirty: map[string]bool{}, timers: map[string]*time.Timer{}}
}

func (q *queue) add(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	if q.active[name] {
		q.dirty[name] = true
		return
	}
	q.active[name] = true
	q.wg.Go(func() { q.run(name) })
}

func (q *queue) run(name string) {
	for {
		q.work(name)
		q.mu.Lock()
		if q.dirty[name] && !q.stopped {
			delete(q.dirty, name)
			q.mu.Unlock()
			continue
		}
		delete(q.active, name)
		delete(q.dirty, name)
		q.mu.Unlock()
		return
	}
}

// addAfter schedules name once after d, replacing an earlier schedule for it:
// the latest requeue decision is the one that counts.
// fired, when set, runs as the timer fires.
func (q *queue) addAfter(name string, d time.Duration, fired func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	if t, ok := q.timers[name]; ok {
		t.Stop()
	}
	q.timers[name] = time.AfterFunc(d, func() {
		if fired != nil {
			fired()
		}
		q.add(name)
	})
}

// shutdown stops accepting work and waits for running workers.
func (q *queue) shutdown() {
	q.mu.Lock()
	q.stopped = true
	for _, t := range q.timers {
		t.Stop()
	}
	q.mu.Unlock()
	q.wg.Wait()
}
