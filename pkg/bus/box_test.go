package bus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// An outbox (or the bus itself) swapped for a link after the bus was made
// is refused by the next OpenBox, and nothing there or in the real outbox
// is read or moved: a link to a world-writable directory, and a link even
// to a private one (a link is never followed).
func TestOpenBoxRefusesASwappedDirectory(t *testing.T) {
	for _, tc := range []struct {
		which string
		mode  os.FileMode
	}{{"bus", 0o777}, {"outbox", 0o777}, {"sent", 0o777}, {"failed", 0o777}, {"bus", 0o700}, {"outbox", 0o700}} {
		which := tc.which
		t.Run(fmt.Sprintf("%s/%#o", which, tc.mode), func(t *testing.T) {
			d := busDirs(t)
			put(t, d.Outbox, "m1.json", `{"id":"m1","session":"s","text":"mine"}`)
			open := t.TempDir()
			if err := os.Chmod(open, tc.mode); err != nil {
				t.Fatal(err)
			}
			put(t, open, "theirs", "an old file of whoever writes there")
			old := time.Now().Add(-72 * time.Hour)
			if err := os.Chtimes(filepath.Join(open, "theirs"), old, old); err != nil {
				t.Fatal(err)
			}
			path := map[string]string{"bus": d.Dir, "outbox": d.Outbox, "sent": d.Sent, "failed": d.Failed}[which]
			if err := os.Rename(path, path+".real"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(open, path); err != nil {
				t.Fatal(err)
			}
			if b, err := OpenBox(d); !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), "symbolic link") {
				if b != nil {
					b.Close()
				}
				t.Fatalf("OpenBox: %v, want ErrNotPrivate naming the link", err)
			}
			if err := Fail(d, "m1.json", "x"); !errors.Is(err, platform.ErrNotPrivate) {
				t.Fatalf("Fail through the link: %v, want ErrNotPrivate", err)
			}
			if err := MoveToSent(d, "m1.json"); !errors.Is(err, platform.ErrNotPrivate) {
				t.Fatalf("MoveToSent through the link: %v, want ErrNotPrivate", err)
			}
			if _, err := PruneSent(d, time.Now().Add(time.Hour)); !errors.Is(err, platform.ErrNotPrivate) {
				t.Fatalf("PruneSent through the link: %v, want ErrNotPrivate", err)
			}
			if got := names(t, open); !slices.Equal(got, []string{"theirs"}) {
				t.Fatalf("the linked directory holds %v, want only its own file", got)
			}
		})
	}
}

// The directory itself is judged by its descriptor: another uid's or one
// others may write into is refused as EnsureDirs refuses it.
func TestOpenBoxRefusesAnOpenedOutbox(t *testing.T) {
	d := busDirs(t)
	if err := os.Chmod(d.Outbox, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBox(d); !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("OpenBox: %v", err)
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chmod(d.Outbox, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(d.Outbox, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBox(d); !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Fatalf("OpenBox: %v", err)
	}
}

// Take reads only a regular file of the consumer's uid.
func TestTakeRefusesAnotherUIDsFile(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another uid needs root")
	}
	d := busDirs(t)
	path := put(t, d.Outbox, "m1.json", `{"id":"m1","session":"s","text":"planted"}`)
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBox(d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, e, err := b.Take("m1.json")
	if !errors.Is(err, platform.ErrUnsafeFile) || !strings.Contains(err.Error(), "owned by uid 4242") || e.UID != 4242 {
		t.Fatalf("Take: %v (%+v), want ErrUnsafeFile naming uid 4242", err, e)
	}
	if v, _ := Judge(err, time.Now(), time.Now()); v != Refuse {
		t.Fatalf("judged %v, want refuse at once", v)
	}
}

func TestTake(t *testing.T) {
	d := busDirs(t)
	put(t, d.Outbox, "m1.json", `{"id":"m1","session":"s","text":"hi"}`)
	put(t, d.Outbox, "m2.json", `{"id":"other","session":"s","text":"hi"}`)
	put(t, d.Outbox, "m3.json", `{"id":"m3","session":"s","te`)
	put(t, d.Outbox, "notes.txt", `hi`)
	b, err := OpenBox(d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if m, e, err := b.Take("m1.json"); err != nil || m.Text != "hi" || e.ModTime.IsZero() {
		t.Fatalf("m1: %+v %+v %v", m, e, err)
	}
	for name, want := range map[string]string{"m2.json": "differs from its file name", "m3.json": "m3.json", "notes.txt": "<id>.json"} {
		if _, e, err := b.Take(name); err == nil || !strings.Contains(err.Error(), want) || e.ModTime.IsZero() {
			t.Errorf("%s: %v (%+v), want an error naming %q and the file's time", name, err, e, want)
		}
	}
	if _, _, err := b.Take("gone.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gone: %v", err)
	}
}

func TestJudge(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	bad := errors.New("read m1.json: unexpected end of JSON input")
	tests := []struct {
		name  string
		err   error
		mtime time.Time
		want  Verdict
		at    time.Time
	}{
		{"a message", nil, now, Admit, time.Time{}},
		{"gone", fs.ErrNotExist, now, Gone, time.Time{}},
		{"just written, half", bad, now, Later, now.Add(Grace)},
		{"written a second ago", bad, now.Add(-time.Second), Later, now.Add(time.Second)},
		{"at its grace", bad, now.Add(-Grace), Refuse, time.Time{}},
		{"old", bad, now.Add(-time.Hour), Refuse, time.Time{}},
		{"a little ahead (clocks)", bad, now.Add(time.Second), Later, now.Add(time.Second + Grace)},
		{"far ahead: not believed", bad, now.Add(time.Hour), Refuse, time.Time{}},
		{"no time known", bad, time.Time{}, Refuse, time.Time{}},
		{"not a file of ours, young", platform.ErrUnsafeFile, now, Refuse, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, at := Judge(tt.err, tt.mtime, now)
			if v != tt.want || !at.Equal(tt.at) {
				t.Fatalf("Judge = %v, %v; want %v, %v", v, at, tt.want, tt.at)
			}
		})
	}
}

func TestFailedName(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want string
	}{
		{"m1.json", 1, "m1.json"},
		{"m1.json", 2, "m1~2.json"},
		{"m1.json", 10, "m1~10.json"},
		{"notes.txt", 1, "notes.txt"},
		{"notes.txt", 3, "notes.txt~3"},
	}
	for _, tt := range tests {
		if got := FailedName(tt.name, tt.n); got != tt.want {
			t.Errorf("FailedName(%q, %d) = %q, want %q", tt.name, tt.n, got, tt.want)
		}
		if tt.n > 1 && validToken(strings.TrimSuffix(FailedName(tt.name, tt.n), ".json"), MaxIDLen, false) {
			t.Errorf("%q could be an id's first record", FailedName(tt.name, tt.n))
		}
	}
}

// A later failure of a name never replaces the earlier record: both are
// kept, the first under the name, and both count.
func TestFailNeverReplacesARecord(t *testing.T) {
	d := busDirs(t)
	put(t, d.Outbox, "m1.json", `{"id":"m1","session":"s","text":"first`)
	if err := Fail(d, "m1.json", "first reason"); err != nil {
		t.Fatal(err)
	}
	put(t, d.Outbox, "m1.json", `{"id":"m1","session":"s","text":"second`)
	if err := Fail(d, "m1.json", "second reason"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, d.Failed); !slices.Equal(got, []string{"m1.json", "m1~2.json"}) {
		t.Fatalf("failed/ holds %v", got)
	}
	if rec := readFailed(t, d, "m1.json"); rec.Reason != "first reason" || !strings.Contains(rec.Message, "first") {
		t.Fatalf("the first record was replaced: %+v", rec)
	}
	if rec := readFailed(t, d, "m1~2.json"); rec.Reason != "second reason" || !strings.Contains(rec.Message, "second") {
		t.Fatalf("second record %+v", rec)
	}
	if n, err := CountFailed(d); err != nil || n != 2 {
		t.Fatalf("CountFailed %d, %v; want 2", n, err)
	}
}

// The same failure again (an entry left in place, failed again after a
// restart) is the record already there, not a second one.
func TestFailAgainIsTheSameRecord(t *testing.T) {
	d := busDirs(t)
	if err := os.Symlink(filepath.Join(t.TempDir(), "x"), filepath.Join(d.Outbox, "m1.json")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := Fail(d, "m1.json", "not a message"); !errors.Is(err, ErrLeftInPlace) {
			t.Fatalf("Fail: %v", err)
		}
	}
	if got := names(t, d.Failed); !slices.Equal(got, []string{"m1.json"}) {
		t.Fatalf("failed/ holds %v, want one record", got)
	}
}
