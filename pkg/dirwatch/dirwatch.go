// Package dirwatch shares one inotify (fsnotify) instance among every wait
// on a directory's files: subscriptions by directory and file name that
// survive the directory's removal and re-creation.
package dirwatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Watch is one inotify instance shared by every wait and by the loop: a
// per-wait watcher would run into the per-user instance limit with many names.
type Watch struct {
	w *fsnotify.Watcher

	// fsnotify sends events and errors while holding its own lock, which Add
	// and Remove take too. So receive only queues, under qmu, and never
	// waits for anything that may be waiting for fsnotify; handle does the
	// work, Add and Remove included.
	qmu      sync.Mutex
	queue    []fsnotify.Event
	overflow bool
	more     chan struct{}
	done     chan struct{}

	mu   sync.Mutex
	subs map[string]map[chan struct{}]func(string) bool // dir -> subscribers and their filters
	refs map[string]int
	// lost are watched dirs that were removed: the kernel dropped their
	// watch. Their parents are watched (parents counts lost children) so
	// that a re-created dir is watched again at once.
	lost    map[string]bool
	parents map[string]int
}

// New starts a Watch; Close ends it.
func New() (*Watch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	d := &Watch{
		w: w, more: make(chan struct{}, 1), done: make(chan struct{}),
		subs: map[string]map[chan struct{}]func(string) bool{}, refs: map[string]int{},
		lost: map[string]bool{}, parents: map[string]int{},
	}
	go d.receive()
	go d.handle()
	return d, nil
}

func (d *Watch) receive() {
	defer close(d.done)
	for {
		select {
		case ev, ok := <-d.w.Events:
			if !ok {
				return
			}
			d.qmu.Lock()
			d.queue = append(d.queue, ev)
			d.qmu.Unlock()
		case _, ok := <-d.w.Errors:
			if !ok {
				return
			}
			d.qmu.Lock()
			d.overflow = true
			d.qmu.Unlock()
		}
		poke(d.more)
	}
}

func (d *Watch) handle() {
	for {
		select {
		case <-d.more:
		case <-d.done:
			return
		}
		d.qmu.Lock()
		events, overflow := d.queue, d.overflow
		d.queue, d.overflow = nil, false
		d.qmu.Unlock()
		for _, ev := range events {
			// A watch on "." names its files "./x"; subscribers use clean paths.
			name := filepath.Clean(ev.Name)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				d.dropped(name)
			}
			if ev.Has(fsnotify.Create) {
				d.recreated(name)
			}
			d.notify(filepath.Dir(name), filepath.Base(name))
		}
		if overflow {
			// Events were lost (an overflow, a watch fsnotify could not
			// drop): wake everyone, they re-read.
			d.notifyAll()
		}
	}
}

func (d *Watch) notify(dir, base string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for ch, want := range d.subs[dir] {
		if want == nil || want(base) {
			poke(ch)
		}
	}
}

// dropped notes that a watched dir itself went away, and wakes its
// subscribers: what they watch is gone.
func (d *Watch) dropped(path string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refs[path] == 0 || d.lost[path] {
		return
	}
	d.lost[path] = true
	parent := filepath.Dir(path)
	// Added every time, not once per parent: a parent that was removed and
	// re-created lost its own watch, and inotify merges a repeated one. If
	// the parent is gone too, rewatch tries again later.
	_ = d.w.Add(parent)
	d.parents[parent]++
	for ch, want := range d.subs[path] {
		pokeAll(ch, want)
	}
	// Re-created before the parent's watch began: its create event is lost.
	d.recreatedLocked(path)
}

// recreated watches a lost dir again as soon as it reappears, and wakes its
// subscribers: files written before the watch was added are seen by their
// next read.
func (d *Watch) recreated(path string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.recreatedLocked(path)
}

// recreatedLocked watches a subscribed dir that exists again. Not only a
// lost one: fsnotify drops a dir's own delete event when its parent is
// watched, so a dir removed just as its parent's watch began is never marked
// lost. Adding an existing watch again is a no-op for inotify.
func (d *Watch) recreatedLocked(path string) {
	if d.refs[path] == 0 {
		return
	}
	// Only a real dir: inotify follows a symlink planted at the path.
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() || d.w.Add(path) != nil {
		return
	}
	if d.lost[path] {
		d.foundLocked(path)
	}
	for ch, want := range d.subs[path] {
		pokeAll(ch, want)
	}
}

// Rewatch makes sure a subscribed dir that exists is watched, and a lost
// one's parent too: a parent removed and re-created sends no create event for
// the dirs made in it before it was watched again, and an overflow or a
// dropped delete event can leave a dir unwatched without a word. The loop
// calls it after each look at a name, so such a dir is watched again at the
// latest on resync. It pokes the dir's subscribers only when it was lost.
func (d *Watch) Rewatch(dir string) {
	dir = filepath.Clean(dir)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refs[dir] == 0 {
		return
	}
	if !d.lost[dir] {
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			_ = d.w.Add(dir)
		}
		return
	}
	_ = d.w.Add(filepath.Dir(dir))
	d.recreatedLocked(dir)
}

// foundLocked ends the watch for a lost dir's re-creation.
func (d *Watch) foundLocked(path string) {
	delete(d.lost, path)
	parent := filepath.Dir(path)
	if d.parents[parent]--; d.parents[parent] > 0 {
		return
	}
	delete(d.parents, parent)
	if d.refs[parent] == 0 {
		_ = d.w.Remove(parent)
	}
}

func (d *Watch) notifyAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, subs := range d.subs {
		for ch, want := range subs {
			pokeAll(ch, want)
		}
	}
}

// Subscribe returns a channel poked on every change in dir to a file whose
// base name want accepts (every file when want is nil), and a cancel. The
// filter keeps a daemon's temp files from waking anyone: one heartbeat is one
// wake. A poke that names no file (events were lost, the dir went or came
// back) always wakes, and want hears "" just before it: pokes merge in the
// channel, so a subscriber that keeps the names it was given learns there
// that it must read everything again. The watch is added before returning, so a caller that reads the files
// after subscribing misses no change.
func (d *Watch) Subscribe(dir string, want func(base string) bool) (<-chan struct{}, func(), error) {
	// Events name clean paths ("specs/" arrives as "specs/x.yaml").
	dir = filepath.Clean(dir)
	ch := make(chan struct{}, 1)
	d.mu.Lock()
	defer d.mu.Unlock()
	// Added even when already watched: a watch can be gone without a word
	// (a dropped delete event), and inotify merges a repeat.
	missing := false
	if d.refs[dir] == 0 || d.lost[dir] {
		if err := d.w.Add(dir); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, nil, err
			}
			// Gone between the caller's look and now: watch for it as for
			// a lost dir, through its parent, so its return wakes the
			// subscriber rather than the next resync.
			missing = true
			if !d.lost[dir] {
				d.lost[dir] = true
				parent := filepath.Dir(dir)
				_ = d.w.Add(parent)
				d.parents[parent]++
			}
		} else if d.lost[dir] {
			d.foundLocked(dir)
			for ch, want := range d.subs[dir] {
				pokeAll(ch, want) // what they watch is back
			}
		}
	} else if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		_ = d.w.Add(dir)
	}
	if d.subs[dir] == nil {
		d.subs[dir] = map[chan struct{}]func(string) bool{}
	}
	d.refs[dir]++
	d.subs[dir][ch] = want
	if missing {
		// Created before the parent's watch began: no event will say so.
		d.recreatedLocked(dir)
	}
	cancel := func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if _, ok := d.subs[dir][ch]; !ok {
			return
		}
		delete(d.subs[dir], ch)
		close(ch) // ends a goroutine ranging over it
		if d.refs[dir]--; d.refs[dir] == 0 {
			delete(d.subs, dir)
			delete(d.refs, dir)
			if d.lost[dir] {
				d.foundLocked(dir)
			}
			if d.parents[dir] == 0 {
				_ = d.w.Remove(dir)
			}
		}
	}
	return ch, cancel, nil
}

// Close ends the watch; subscribers hear nothing more.
func (d *Watch) Close() error { return d.w.Close() }

// pokeAll wakes a subscriber for a change that names no file; see
// Subscribe.
func pokeAll(ch chan struct{}, want func(string) bool) {
	if want != nil {
		want("")
	}
	poke(ch)
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
