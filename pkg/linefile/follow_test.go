package linefile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// follow runs a Follower on path in the background and returns its lines
// as they come.
func follow(t *testing.T, path string) (<-chan string, *Follower) {
	t.Helper()
	fl, err := NewFollower(path, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	lines := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- fl.Run(ctx, func(l Line) error { lines <- string(l.Text); return nil })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		fl.Close()
	})
	return lines, fl
}

func expectLines(t *testing.T, lines <-chan string, want ...string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for _, w := range want {
		select {
		case got := <-lines:
			if got != w {
				t.Fatalf("line %q, want %q", got, w)
			}
		case <-deadline:
			t.Fatalf("line %q not seen before the deadline", w)
		}
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// The follower reads lines as they are completed, and across a rotation
// (rename away, new file): the old file's late lines (a writer that still
// had it open) and the new file's, from its start.
func TestFollowerAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	appendTo(t, path, "old\n")
	lines, fl := follow(t, path)
	f, _ := fl.File()
	if f == nil {
		t.Fatal("no current file")
	}
	expectLines(t, lines, "old")
	appendTo(t, path, "half")
	appendTo(t, path, " done\n")
	expectLines(t, lines, "half done")

	// A writer keeps the old file open across the rotation.
	old, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := os.Rename(path, filepath.Join(dir, "daemon-1.log")); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "new 1\n")
	expectLines(t, lines, "new 1")
	if _, err := old.WriteString("late in the old file\n"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "new 2\n") // the event that wakes it
	// Two files are read one after the other, so a reader already awake
	// may see "new 2" first: the promise is that neither is lost.
	expectLineSet(t, lines, "late in the old file", "new 2")
}

// expectLineSet waits for exactly the lines in want, in any order.
func expectLineSet(t *testing.T, lines <-chan string, want ...string) {
	t.Helper()
	missing := map[string]bool{}
	for _, w := range want {
		missing[w] = true
	}
	deadline := time.After(10 * time.Second)
	for len(missing) > 0 {
		select {
		case got := <-lines:
			if !missing[got] {
				t.Fatalf("line %q, want one of %v", got, want)
			}
			delete(missing, got)
		case <-deadline:
			t.Fatalf("lines %v not seen before the deadline", missing)
		}
	}
}

// A file that does not exist yet is followed from its creation; one cut
// shorter is read again from its start.
func TestFollowerCreatedAndTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	lines, _ := follow(t, path)
	appendTo(t, path, "one\ntwo\n")
	expectLines(t, lines, "one", "two")
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "three\n")
	expectLines(t, lines, "three")
}

// A symbolic link put where the file was ends the follow with an error; it
// is never read through.
func TestFollowerRefusesSymlinkAfterRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	appendTo(t, path, "a\n")
	fl, err := NewFollower(path, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	secret := filepath.Join(dir, "secret")
	appendTo(t, secret, "not for the reader\n")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	err = fl.Run(ctx, func(l Line) error { got = append(got, string(l.Text)); return nil })
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Run = %v (ctx %v), want an error for the symbolic link", err, ctx.Err())
	}
	for _, l := range got {
		if l == "not for the reader" {
			t.Errorf("read through the symbolic link")
		}
	}
}

// Two rotations before the follower wakes: the file in between, never
// current here, is found among the rotated ones and read whole, in order.
func TestFollowerReadsFilesRotatedBetweenWakes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	appendTo(t, path, "a1\n")
	fl, err := NewFollower(path, 64, func() []string { return []string{path + ".2", path + ".1"} })
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	rotate := func() {
		_ = os.Rename(path+".1", path+".2")
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(t, path, "a2\n")
	rotate()
	appendTo(t, path, "b1\nb2\n")
	rotate()
	appendTo(t, path, "c1\n")
	ctx, cancel := context.WithCancel(context.Background())
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- fl.Run(ctx, func(l Line) error {
			got = append(got, string(l.Text))
			if len(got) == 5 {
				cancel()
			}
			return nil
		})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		cancel()
		<-done
		t.Fatalf("lines %q before the deadline, want five", got)
	}
	if want := "a1,a2,b1,b2,c1"; strings.Join(got, ",") != want {
		t.Errorf("lines %q, want %s", got, want)
	}
}
