package dirwatch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func waitPoke(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no event for %s", what)
	}
}

// A watched dir that is removed and re-created is watched again by the next
// subscribe, and every subscriber of it hears its changes.
func TestDirWatchSurvivesRecreatedDir(t *testing.T) {
	w := newTestWatch(t)
	dir := filepath.Join(t.TempDir(), "bot")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	long := mustSubscribe(t, w, dir, recordFiles)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, long, "state.json written")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, long, "the dir removed")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	short := mustSubscribe(t, w, dir, recordFiles)
	// Drain what the removal left, then a change must reach both.
	for drained := false; !drained; {
		select {
		case <-long:
		default:
			drained = true
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, short, "state.json in the re-created dir (new subscriber)")
	waitPoke(t, long, "state.json in the re-created dir (old subscriber)")
}

// A removed dir is watched again as soon as it is re-created, with no new
// subscribe: an operator's rm -rf and a daemon's mkdir leave no blind spot.
func TestDirWatchRewatchesRecreatedDirAtOnce(t *testing.T) {
	w := newTestWatch(t)
	dir := filepath.Join(t.TempDir(), "bot")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	events := mustSubscribe(t, w, dir, recordFiles)
	for round := range 3 {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, events, "the dir removed")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		// Pokes left from the removal may come before the watch is back:
		// wait for the one that says the dir is watched again, then a write
		// must be heard.
		for w.isLost(dir) {
			waitPoke(t, events, "the dir re-created")
		}
		for drained := false; !drained; {
			select {
			case <-events:
			default:
				drained = true
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, events, "state.json in the re-created dir")
		w.mu.Lock()
		lost, parents := len(w.lost), len(w.parents)
		w.mu.Unlock()
		if lost != 0 || parents != 0 {
			t.Fatalf("round %d: %d dirs still lost, %d parents still watched", round, lost, parents)
		}
	}
}

func (d *Watch) isLost(dir string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lost[dir]
}

// Watched dirs moved away and then deleted make fsnotify report an error
// while holding its own lock, which Add and Remove need: handling events
// must never wait for fsnotify while fsnotify waits to deliver. After each
// round the watch must still answer.
func TestDirWatchSurvivesMovedAndDeletedDirs(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 30
	}
	for round := range rounds {
		w, err := New()
		if err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		trash := filepath.Join(root, "trash")
		if err := os.Mkdir(trash, 0o700); err != nil {
			t.Fatal(err)
		}
		var dirs []string
		for j := range 8 {
			dir := filepath.Join(root, fmt.Sprint("p", j), "bot")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if _, _, err := w.Subscribe(dir, recordFiles); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, dir)
		}
		for j, dir := range dirs {
			if err := os.Rename(dir, filepath.Join(trash, fmt.Sprint(j))); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.RemoveAll(trash); err != nil {
			t.Fatal(err)
		}
		answered := make(chan struct{})
		go func() {
			defer close(answered)
			// Takes the watch's lock and calls fsnotify, as a spawn wait does.
			if _, cancel, err := w.Subscribe(root, nil); err == nil {
				cancel()
			}
		}()
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the watch stopped answering (deadlock)", round)
		}
		w.Close()
	}
}

// The daemons dir itself removed and re-created: no create event reaches a
// lost child made before its parent is watched again; rewatch (the loop
// calls it after each look) watches it again.
func TestDirWatchRewatchAfterParentRecreated(t *testing.T) {
	w := newTestWatch(t)
	root := filepath.Join(t.TempDir(), "daemons")
	dir := filepath.Join(root, "bot")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	events := mustSubscribe(t, w, dir, recordFiles)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for !w.isLost(dir) {
		waitPoke(t, events, "the dir removed")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.Rewatch(dir)
	if w.isLost(dir) {
		t.Fatal("rewatch did not watch the re-created dir again")
	}
	drain(events)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, events, "state.json in the re-created dir")
}

// A dir given with a trailing slash (shell completion adds one to --spec)
// hears its files: events name clean paths.
func TestDirWatchTrailingSlash(t *testing.T) {
	w := newTestWatch(t)
	dir := t.TempDir()
	events := mustSubscribe(t, w, dir+"/", nil)
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, events, "a.yaml written")
}

func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// fsnotify drops a dir's own delete event when its parent is watched, so a
// subscribed dir can lose its watch without ever being marked lost (rm -rf
// of two daemon dirs at once). Both ways back are tested: the create event
// in the watched parent, and the loop's rewatch after a look.
func TestDirWatchRecoversUnmarkedLostDir(t *testing.T) {
	w := newTestWatch(t)
	root := t.TempDir()
	dir := filepath.Join(root, "bot")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	events := mustSubscribe(t, w, dir, recordFiles)
	unwatch := func() {
		// The state the dropped event leaves: no watch, nothing marked lost.
		w.mu.Lock()
		defer w.mu.Unlock()
		if err := w.w.Remove(dir); err != nil {
			t.Fatal(err)
		}
	}
	write := func(what string) {
		drain(events)
		if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, events, what)
	}

	unwatch()
	w.Rewatch(dir)
	write("state.json after rewatch")

	unwatch()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	if err := w.w.Add(root); err != nil { // a lost sibling's parent watch
		t.Fatal(err)
	}
	w.mu.Unlock()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, events, "the dir re-created")
	for !slices.Contains(w.w.WatchList(), dir) {
		waitPoke(t, events, "the dir watched again")
	}
	write("state.json after the create event")
}

func newTestWatch(t *testing.T) *Watch {
	t.Helper()
	w, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mustSubscribe(t *testing.T, w *Watch, dir string, want func(string) bool) <-chan struct{} {
	t.Helper()
	events, cancel, err := w.Subscribe(dir, want)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return events
}

// A dir that is missing when subscribed (removed between a look and the
// subscribe) is watched through its parent: its creation and the files
// written in it wake the subscriber, with no second subscribe.
func TestDirWatchSubscribesMissingDir(t *testing.T) {
	w := newTestWatch(t)
	dir := filepath.Join(t.TempDir(), "bot")
	ch := mustSubscribe(t, w, dir, recordFiles)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, ch, "the dir created")
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, ch, "state.json in the created dir")
}

// recordFiles is a daemon dir's filter as the ownership store uses it.
func recordFiles(base string) bool { return base == "state.json" || base == "control.json" }

// A poke that names no file (here the dir's removal and return) is told
// to the filter as "" before the poke, so a subscriber that keeps the
// names its filter saw can tell it from a named change the poke merged
// into.
func TestDirWatchNamelessPokeIsToldToTheFilter(t *testing.T) {
	w := newTestWatch(t)
	dir := filepath.Join(t.TempDir(), "outbox")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 16)
	ch := mustSubscribe(t, w, dir, func(base string) bool {
		heard <- base
		return base != ""
	})
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, ch, "a.json written")
	if got := <-heard; got != "a.json" {
		t.Fatalf("the filter heard %q, want a.json", got)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, ch, "the dir removed")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-heard:
			if got == "" {
				return
			}
		case <-deadline:
			t.Fatal("the dir's removal woke the subscriber, but its filter never heard \"\"")
		}
	}
}
