package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
	"golang.org/x/sys/unix"
)

// busDirs makes a whole private bus under a fresh temp dir.
func busDirs(t *testing.T) Dirs {
	t.Helper()
	d, err := Paths(t.TempDir(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return d
}

func put(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEnsureDirsCreatesPrivate(t *testing.T) {
	root := t.TempDir()
	d, err := Paths(filepath.Join(root, "agent"), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "agent", "sdk"), d.Dir, d.Outbox, d.Sent, d.Failed, d.Inbox} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 directory", p, fi.Mode(), err)
		}
	}
	if err := EnsureDirs(d); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if err := EnsureDirs(Dirs{Dir: d.Dir}); err == nil {
		t.Fatal("empty dirs accepted")
	}
}

func TestEnsureDirsRefuses(t *testing.T) {
	tests := []struct {
		name, want string
		make       func(t *testing.T, path string)
	}{
		{"symlink", "symbolic link", func(t *testing.T, path string) {
			if err := os.Symlink(t.TempDir(), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"file", "not a directory", func(t *testing.T, path string) { put(t, filepath.Dir(path), filepath.Base(path), "") }},
		{"fifo", "not a directory", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"world-writable", "writable by group or others", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o703); err != nil {
				t.Fatal(err)
			}
		}},
		{"another uid's", "owned by uid 4242", func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("giving a directory to another uid needs root")
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(path, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, which := range []string{"bus", "outbox", "sent", "failed", "inbox"} {
		for _, tt := range tests {
			t.Run(which+"/"+tt.name, func(t *testing.T) {
				d, err := Paths(t.TempDir(), "demo")
				if err != nil {
					t.Fatal(err)
				}
				path := map[string]string{"bus": d.Dir, "outbox": d.Outbox, "sent": d.Sent, "failed": d.Failed, "inbox": d.Inbox}[which]
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				tt.make(t, path)
				before, _ := os.Lstat(path)
				err = EnsureDirs(d)
				if !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("want ErrNotPrivate naming %q, got %v", tt.want, err)
				}
				after, _ := os.Lstat(path)
				if after.Mode() != before.Mode() || !os.SameFile(before, after) {
					t.Fatal("the refused path was changed")
				}
			})
		}
	}
}

func TestListOutbox(t *testing.T) {
	d := busDirs(t)
	for _, n := range []string{"b.json", "a.json", ".a.json.tmp-1", "notes.txt", ".hidden"} {
		put(t, d.Outbox, n, "{}")
	}
	if err := os.Mkdir(filepath.Join(d.Outbox, "c-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := ListOutbox(d.Outbox)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.json", "b.json", "c-dir", "notes.txt"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := ListOutbox(filepath.Join(d.Dir, "missing")); err == nil {
		t.Fatal("a missing outbox listed")
	}
}

func TestMoveToSent(t *testing.T) {
	t.Run("moves", func(t *testing.T) {
		d := busDirs(t)
		put(t, d.Outbox, "m1.json", "one")
		if err := MoveToSent(d, "m1.json"); err != nil {
			t.Fatal(err)
		}
		if names(t, d.Outbox) != nil {
			t.Fatalf("outbox still holds %v", names(t, d.Outbox))
		}
		if data, err := os.ReadFile(filepath.Join(d.Sent, "m1.json")); err != nil || string(data) != "one" {
			t.Fatalf("sent: %q, %v", data, err)
		}
	})
	t.Run("same bytes already sent", func(t *testing.T) {
		d := busDirs(t)
		put(t, d.Outbox, "m1.json", "one")
		put(t, d.Sent, "m1.json", "one")
		if err := MoveToSent(d, "m1.json"); err != nil {
			t.Fatal(err)
		}
		if names(t, d.Outbox) != nil {
			t.Fatal("outbox copy kept")
		}
	})
	t.Run("different bytes already sent", func(t *testing.T) {
		d := busDirs(t)
		put(t, d.Outbox, "m1.json", "one")
		put(t, d.Sent, "m1.json", "two")
		if err := MoveToSent(d, "m1.json"); err == nil || !strings.Contains(err.Error(), "different content") {
			t.Fatalf("want a refusal, got %v", err)
		}
		a, _ := os.ReadFile(filepath.Join(d.Outbox, "m1.json"))
		b, _ := os.ReadFile(filepath.Join(d.Sent, "m1.json"))
		if string(a) != "one" || string(b) != "two" {
			t.Fatalf("changed: outbox %q, sent %q", a, b)
		}
	})
	t.Run("not a regular file", func(t *testing.T) {
		d := busDirs(t)
		target := put(t, t.TempDir(), "target", "x")
		if err := os.Symlink(target, filepath.Join(d.Outbox, "m1.json")); err != nil {
			t.Fatal(err)
		}
		if err := MoveToSent(d, "m1.json"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("want a refusal, got %v", err)
		}
		if names(t, d.Sent) != nil {
			t.Fatal("something reached sent/")
		}
	})
	for _, bad := range []string{"", ".m1.json", "../m1.json", "a/b"} {
		t.Run("name "+bad, func(t *testing.T) {
			d := busDirs(t)
			if err := MoveToSent(d, bad); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func readFailed(t *testing.T, d Dirs, name string) FailedRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(d.Failed, name))
	if err != nil {
		t.Fatal(err)
	}
	var rec FailedRecord
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestFailRegularFile(t *testing.T) {
	d := busDirs(t)
	put(t, d.Outbox, "m1.json", `{"id":"m1","text":"<b>"}`)
	before := time.Now().UnixMilli()
	if err := Fail(d, "m1.json", "unknown field \"x\""); err != nil {
		t.Fatal(err)
	}
	rec := readFailed(t, d, "m1.json")
	if rec.Name != "m1.json" || rec.Reason != `unknown field "x"` || rec.Message != `{"id":"m1","text":"<b>"}` || rec.FailedAt < before {
		t.Fatalf("record %+v", rec)
	}
	if names(t, d.Outbox) != nil {
		t.Fatal("outbox file kept")
	}
	if n, err := CountFailed(d); err != nil || n != 1 {
		t.Fatalf("CountFailed %d, %v", n, err)
	}
}

func TestFailOversizeFileKeepsNoMessage(t *testing.T) {
	d := busDirs(t)
	put(t, d.Outbox, "big.json", strings.Repeat("x", MaxFileSize+1))
	if err := Fail(d, "big.json", "too large"); err != nil {
		t.Fatal(err)
	}
	rec := readFailed(t, d, "big.json")
	if rec.Message != "" || !strings.Contains(rec.Reason, "could not be read") {
		t.Fatalf("record %+v", rec)
	}
	if names(t, d.Outbox) != nil {
		t.Fatal("outbox file kept")
	}
}

func TestFailLeavesNonRegularInPlace(t *testing.T) {
	tests := []struct {
		name, want string
		make       func(t *testing.T, path string)
	}{
		{"symlink", "a symbolic link", func(t *testing.T, path string) {
			if err := os.Symlink(put(t, t.TempDir(), "secret", "do not copy"), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", "a FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", "a directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"another uid's file", "a file of uid 4242", func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("giving a file to another uid needs root")
			}
			put(t, filepath.Dir(path), filepath.Base(path), `{"id":"m1","session":"s","text":"planted"}`)
			if err := os.Chown(path, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := busDirs(t)
			path := filepath.Join(d.Outbox, "m1.json")
			tt.make(t, path)
			before, _ := os.Lstat(path)
			errc := make(chan error, 1)
			go func() { errc <- Fail(d, "m1.json", "not a message") }()
			var err error
			select {
			case err = <-errc:
			case <-time.After(10 * time.Second):
				t.Fatal("Fail blocked on it")
			}
			if !errors.Is(err, ErrLeftInPlace) {
				t.Fatalf("want ErrLeftInPlace, got %v", err)
			}
			after, lerr := os.Lstat(path)
			if lerr != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Fatalf("the entry was touched: %v", lerr)
			}
			rec := readFailed(t, d, "m1.json")
			if rec.Message != "" || !strings.Contains(rec.Reason, tt.want) || !strings.HasPrefix(rec.Reason, "not a message") {
				t.Fatalf("record %+v", rec)
			}
		})
	}
}

func TestPruneSent(t *testing.T) {
	d := busDirs(t)
	now := time.Now()
	for i, age := range []time.Duration{48 * time.Hour, 25 * time.Hour, time.Hour} {
		p := put(t, d.Sent, fmt.Sprintf("m%d.json", i), "x")
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	old := now.Add(-72 * time.Hour)
	if err := os.Symlink(put(t, t.TempDir(), "target", "x"), filepath.Join(d.Sent, "link.json")); err != nil {
		t.Fatal(err)
	}
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(d.Sent, "link.json"), ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d.Sent, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(d.Sent, "dir"), old, old); err != nil {
		t.Fatal(err)
	}
	n, err := PruneSent(d, now.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, d.Sent); n != 2 || !slices.Equal(got, []string{"dir", "link.json", "m2.json"}) {
		t.Fatalf("removed %d, left %v", n, got)
	}
}

// A batch moves what it can and leaves each refused name as it was, with
// its own error: one bad name never holds back or loses the others.
func TestMoveAllToSent(t *testing.T) {
	d := busDirs(t)
	put(t, d.Outbox, "a.json", "one")
	put(t, d.Outbox, "b.json", "two")
	put(t, d.Sent, "b.json", "other")
	put(t, d.Outbox, "c.json", "three")
	target := put(t, t.TempDir(), "target", "x")
	if err := os.Symlink(target, filepath.Join(d.Outbox, "d.json")); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBox(d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	errs := b.MoveAllToSent([]string{"a.json", "b.json", "c.json", "d.json", "gone.json"})
	for i, want := range []string{"", "different content", "", "symbolic link", "no such file"} {
		switch {
		case want == "" && errs[i] != nil:
			t.Errorf("name %d: %v, want moved", i, errs[i])
		case want != "" && (errs[i] == nil || !strings.Contains(errs[i].Error(), want)):
			t.Errorf("name %d: %v, want an error saying %q", i, errs[i], want)
		}
	}
	if got := names(t, d.Outbox); !slices.Equal(got, []string{"b.json", "d.json"}) {
		t.Errorf("outbox holds %v, want the refused b.json and d.json", got)
	}
	for name, want := range map[string]string{"a.json": "one", "b.json": "other", "c.json": "three"} {
		if data, err := os.ReadFile(filepath.Join(d.Sent, name)); err != nil || string(data) != want {
			t.Errorf("sent/%s: %q, %v; want %q", name, data, err, want)
		}
	}
}
