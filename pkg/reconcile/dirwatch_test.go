package reconcile

import (
	"os"
	"path/filepath"
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
	w, err := newDirWatch()
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	dir := filepath.Join(t.TempDir(), "bot")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	long, cancel, err := w.subscribe(dir, recordFiles)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
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
	short, cancel2, err := w.subscribe(dir, recordFiles)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel2()
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
	w, err := newDirWatch()
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	dir := filepath.Join(t.TempDir(), "bot")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	events, cancel, err := w.subscribe(dir, recordFiles)
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
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

func (d *dirWatch) isLost(dir string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lost[dir]
}
