package relay

import (
	"slices"
	"sync"
)

// touched collects the outbox names the watcher reported since the
// dispatcher last looked, so that a change costs the dispatcher the names
// it touched, not a listing of the whole backlog. Its invariant: every
// name added here is followed by a wake of the dispatcher, and a wake that
// finds the set empty (the watcher overflowed, the outbox was removed or
// re-created: pokes that name nothing) makes the dispatcher list the
// whole outbox, as do its start and its periodic resync. So no change is
// ever seen by neither.
type touched struct {
	mu    sync.Mutex
	names map[string]struct{}
}

// add records base; the caller then wakes the dispatcher.
func (t *touched) add(base string) {
	t.mu.Lock()
	if t.names == nil {
		t.names = map[string]struct{}{}
	}
	t.names[base] = struct{}{}
	t.mu.Unlock()
}

// take empties the set and returns its names, sorted; nil when empty.
func (t *touched) take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.names) == 0 {
		return nil
	}
	names := make([]string, 0, len(t.names))
	for n := range t.names {
		names = append(names, n)
	}
	t.names = nil
	slices.Sort(names)
	return names
}
