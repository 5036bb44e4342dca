package bus

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

// outbox makes a private outbox directory under a fresh temp dir.
func outbox(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "outbox")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := outbox(t)
	in := Message{Session: "s:1", Title: "build", Text: "line 1\n<b>& done", Replaces: "earlier"}
	id, err := Write(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	if !validToken(id, MaxIDLen, false) {
		t.Fatalf("generated id %q invalid", id)
	}
	path := filepath.Join(dir, id+".json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.ID, want.Event, want.Level = id, EventMessage, LevelInfo
	if !got.Equal(want) {
		t.Fatalf("read %+v, want %+v", got, want)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Fatalf("outbox holds %v, want only %s.json", n, id)
	}
}

func TestWriteRefusesInvalidAndWritesNothing(t *testing.T) {
	dir := outbox(t)
	_, err := Write(dir, Message{ID: "a", Session: "s", Level: "loud"})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "level" || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("want a level field error naming the id, got %v", err)
	}
	if n := names(t, dir); len(n) != 0 {
		t.Fatalf("outbox holds %v after an invalid message", n)
	}
}

func TestWriteSameIDSameContentIsOneFile(t *testing.T) {
	dir := outbox(t)
	m := Message{ID: "same-1", Session: "s", Text: strings.Repeat("payload ", 4096)}
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Write(dir, m)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if n := names(t, dir); len(n) != 1 || n[0] != "same-1.json" {
		t.Fatalf("outbox holds %v, want exactly same-1.json and no temp file", n)
	}
	got, err := Read(filepath.Join(dir, "same-1.json"))
	if err != nil || !got.Equal(m.WithDefaults()) {
		t.Fatalf("read back %v, %v", got.ID, err)
	}
}

func TestWriteSameIDDifferentContentRefused(t *testing.T) {
	dir := outbox(t)
	if _, err := Write(dir, Message{ID: "x1", Session: "s", Text: "first"}); err != nil {
		t.Fatal(err)
	}
	_, err := Write(dir, Message{ID: "x1", Session: "s", Text: "second"})
	if err == nil || !strings.Contains(err.Error(), `"x1"`) || !strings.Contains(err.Error(), "different content") {
		t.Fatalf("want a different-content error naming x1, got %v", err)
	}
	got, err := Read(filepath.Join(dir, "x1.json"))
	if err != nil || got.Text != "first" {
		t.Fatalf("the first message changed: %+v, %v", got, err)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Fatalf("outbox holds %v", n)
	}
}

func TestWriteRefusesUnsafeOutbox(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := Message{ID: "a", Session: "s"}
	for _, tt := range []struct{ name, dir, has string }{
		{"symlink", link, "symbolic link"},
		{"world writable", open, "writable by group or others"},
		{"not a directory", file, "not a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Write(tt.dir, m)
			if !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), tt.has) {
				t.Fatalf("want ErrNotPrivate (%s), got %v", tt.has, err)
			}
		})
	}
	if n := names(t, real); len(n) != 0 {
		t.Fatalf("written through the link: %v", n)
	}
	if n := names(t, open); len(n) != 0 {
		t.Fatalf("written into the open dir: %v", n)
	}
	t.Run("missing", func(t *testing.T) {
		missing := filepath.Join(base, "missing")
		_, err := Write(missing, m)
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("want not-exist, got %v", err)
		}
		if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("Write created the outbox: %v", err)
		}
	})
}

func TestReadRefusesFIFOWithoutBlocking(t *testing.T) {
	dir := outbox(t)
	path := filepath.Join(dir, "f1.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// Without O_NONBLOCK this open would wait for a writer forever and the
	// test would hit its deadline.
	_, err := Read(path)
	if !errors.Is(err, platform.ErrUnsafeFile) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("want ErrUnsafeFile for a FIFO, got %v", err)
	}
	// A writer reusing that id must not block on it either.
	if _, err := Write(dir, Message{ID: "f1", Session: "s"}); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("want a cannot-be-read error, got %v", err)
	}
}

func TestReadRefusesSymlinkAndOversize(t *testing.T) {
	dir := outbox(t)
	target := filepath.Join(dir, "t.json")
	if err := os.WriteFile(target, []byte(`{"id":"t","session":"s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(link); !errors.Is(err, platform.ErrUnsafeFile) {
		t.Fatalf("want ErrUnsafeFile for a symlink, got %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big); !errors.Is(err, platform.ErrTooLarge) {
		t.Fatalf("want ErrTooLarge, got %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"id":"bad","session":"s","x":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `unknown field "x"`) {
		t.Fatalf("want an unknown-field error naming the file, got %v", err)
	}
}

func TestWriteSameIDRacingDifferentContentOneWins(t *testing.T) {
	dir := outbox(t)
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Write(dir, Message{ID: "race", Session: "s", Text: strings.Repeat(string(rune('a'+i)), 64<<10)})
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("writers %d and %d both published id race", winner, i)
			}
			winner = i
		} else if !strings.Contains(err.Error(), "different content") {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer published")
	}
	got, err := Read(filepath.Join(dir, "race.json"))
	if err != nil || got.Text[0] != byte('a'+winner) {
		t.Fatalf("the file is not the winner's: %v", err)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Fatalf("outbox holds %v", n)
	}
}

func TestWriteIDTakenInSentOrFailed(t *testing.T) {
	m := Message{ID: "p1", Session: "s", Text: "posted"}
	posted, err := encode(m.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	other, err := encode(Message{ID: "p1", Session: "s", Text: "other"}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		sent    []byte // nil: none
		failed  bool
		wantErr string // "" for success
	}{
		{"same content already sent", posted, false, ""},
		{"different content already sent", other, false, "sent message with different content"},
		{"unreadable sent file", []byte("not json"), false, "cannot be read"},
		{"failed", nil, true, "failed message"},
		{"failed and sent", posted, true, "failed message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := busDirs(t)
			if tt.sent != nil {
				put(t, d.Sent, "p1.json", string(tt.sent))
			}
			if tt.failed {
				put(t, d.Failed, "p1.json", `{"name":"p1.json","reason":"x","failedAt":1,"message":""}`)
			}
			id, err := Write(d.Outbox+"/", m)
			if tt.wantErr == "" {
				if err != nil || id != "p1" {
					t.Fatalf("want success, got %q, %v", id, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `"p1"`) {
				t.Fatalf("want an error naming p1 and %q, got %v", tt.wantErr, err)
			}
			if n := names(t, d.Outbox); n != nil {
				t.Fatalf("outbox holds %v: the message would be posted again", n)
			}
		})
	}
	t.Run("a sent symlink is not followed", func(t *testing.T) {
		d := busDirs(t)
		if err := os.Symlink(put(t, t.TempDir(), "p1.json", string(posted)), filepath.Join(d.Sent, "p1.json")); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(d.Outbox, m); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("want a refusal, got %v", err)
		}
	})
}
