package dirwatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A path two dirs below what exists is followed as the dirs appear, as the
// file is written by rename, and again after the dirs are removed and made
// anew: the watch moves down and up the way.
func TestWatchPathFollowsTheWayDownAndUp(t *testing.T) {
	w := newTestWatch(t)
	root := t.TempDir()
	file := filepath.Join(root, "a", "b", "status.json")
	p, err := w.WatchPath(file)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	write := func(what string) {
		t.Helper()
		tmp := file + ".tmp"
		if err := os.WriteFile(tmp, []byte(what), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, p.Changes(), what)
	}
	for round := range 2 {
		if err := os.Mkdir(filepath.Join(root, "a"), 0o700); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, p.Changes(), "a made")
		if err := os.Mkdir(filepath.Join(root, "a", "b"), 0o700); err != nil {
			t.Fatal(err)
		}
		waitPoke(t, p.Changes(), "b made")
		write("the file written")
		write("the file replaced")
		if round == 0 {
			if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
				t.Fatal(err)
			}
			waitPoke(t, p.Changes(), "the way removed")
		}
	}
	select {
	case err := <-p.Errors():
		t.Fatal(err)
	default:
	}
}

// Another file beside the followed one wakes nobody: by the time a
// subscriber of every file in the dir heard of it, the path's filter has
// judged it too (one event is handed to all in one go).
func TestWatchPathIgnoresItsNeighbours(t *testing.T) {
	w := newTestWatch(t)
	dir := t.TempDir()
	p, err := w.WatchPath(filepath.Join(dir, "status.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	all := mustSubscribe(t, w, dir, nil)
	if err := os.WriteFile(filepath.Join(dir, "other"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, all, "the neighbour written")
	select {
	case <-p.Changes():
		t.Fatal("the neighbour woke the path's watch")
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.WriteFile(filepath.Join(dir, "status.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitPoke(t, p.Changes(), "status.json written")
}
