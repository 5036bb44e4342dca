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
