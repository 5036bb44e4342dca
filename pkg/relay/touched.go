package relay

import (
	"slices"
	"sync"
)

// touched collects the outbox names the watcher reported since the
// dispatcher last looked, so that a change costs the dispatcher the names
// it touched, not a listing of the whole backlog. Its invariant: every
// name added here, and every mark that names must be read again (a watcher
// poke that names nothing: events lost, the outbox removed or made again),
// is followed by a wake of the dispatcher, and a take that returns all
// makes the dispatcher list the whole outbox, as do its start and its
// periodic resync. The mark is kept beside the names, not told apart by
// the wake itself: wakes merge, so a nameless poke merged into a named one
// would otherwise be read as that name alone. So no change is ever seen by
// neither.
type touched struct {
	mu    sync.Mutex
	names map[string]struct{}
	all   bool
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

// everything marks that the whole outbox must be read again; the caller
// then wakes the dispatcher.
func (t *touched) everything() {
	t.mu.Lock()
	t.all = true
	t.mu.Unlock()
}

// take empties the set and returns its names, sorted, or all when the
// whole outbox must be read again.
func (t *touched) take() (names []string, all bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	all, t.all = t.all, false
	if all || len(t.names) == 0 {
		t.names = nil
		return nil, all
	}
	names = make([]string, 0, len(t.names))
	for n := range t.names {
		names = append(names, n)
	}
	t.names = nil
	slices.Sort(names)
	return names, false
}
