package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sys/unix"
)

func newLog(t *testing.T) (*Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.jsonl")
	return Open(path, logr.Discard()), path
}

func ev(name, reason, msg string) Event {
	return Event{Time: time.Now(), Name: name, Type: TypeNormal, Reason: reason, Message: msg}
}

func read(t *testing.T, path string, names ...string) History {
	t.Helper()
	h, err := Read(path, names)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// An append that would pass MaxSize rotates first: .1 is the last full
// file, .2 the one before, and the oldest is dropped. Read returns what
// the three files hold, oldest first.
func TestRotation(t *testing.T) {
	l, path := newLog(t)
	msg := strings.Repeat("x", 1000)
	n := 0
	for ; n < 4000; n++ { // about 4 MiB: three rotations
		if err := l.Append(ev("bot", "Spawned", fmt.Sprintf("%d %s", n, msg))); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, path + ".1", path + ".2"} {
		if s := size(t, p); s > MaxSize {
			t.Errorf("%s is %d bytes, over %d", p, s, MaxSize)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("a third rotated file exists: %v", err)
	}
	h := read(t, path)
	if h.Skipped != 0 || len(h.Events) < 2000 || len(h.Events) >= n {
		t.Fatalf("read %d events (%d skipped) of %d written; want the last three files' worth", len(h.Events), h.Skipped, n)
	}
	// The newest are kept, in order, without a gap.
	first := n - len(h.Events)
	for i, e := range h.Events {
		if want := fmt.Sprintf("%d ", first+i); !strings.HasPrefix(e.Message, want) {
			t.Fatalf("event %d is %.10q, want it to start with %q", i, e.Message, want)
		}
	}
}

// Appenders with their own descriptors (as the loop and a CLI command are)
// never interleave their lines, and no history is lost to two of them
// rotating the same file: every event written is read back, once.
func TestConcurrentAppenders(t *testing.T) {
	_, path := newLog(t)
	const writers, each = 8, 300 // about 2.5 MiB: two rotations, nothing dropped yet
	msg := strings.Repeat("y", 1000)
	var wg sync.WaitGroup
	for w := range writers {
		l := Open(path, logr.Discard())
		wg.Go(func() {
			for i := range each {
				if err := l.Append(ev("bot", "Spawned", fmt.Sprintf("%d/%d %s", w, i, msg))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	h := read(t, path)
	if h.Skipped != 0 {
		t.Errorf("%d lines skipped: appends interleaved", h.Skipped)
	}
	seen := map[string]int{}
	for _, e := range h.Events {
		seen[strings.Fields(e.Message)[0]]++
	}
	for w := range writers {
		for i := range each {
			if k := fmt.Sprintf("%d/%d", w, i); seen[k] != 1 {
				t.Fatalf("event %s read %d times, want once (%d events read)", k, seen[k], len(h.Events))
			}
		}
	}
}

// A rotation decided on a file another appender has rotated meanwhile
// does nothing: rotating again would drop a file of history.
func TestRotateTwiceRotatesOnce(t *testing.T) {
	l, path := newLog(t)
	if err := l.Append(ev("bot", "Spawned", "one")); err != nil {
		t.Fatal(err)
	}
	full, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.rotate(full); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ev("bot", "Spawned", "two")); err != nil {
		t.Fatal(err)
	}
	if err := l.rotate(full); err != nil { // the second appender, late
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".2"); !os.IsNotExist(err) {
		t.Errorf("rotated twice: %s.2 exists", path)
	}
	if h := read(t, path); len(h.Events) != 2 {
		t.Errorf("read %d events, want both", len(h.Events))
	}
}

// While another process holds the rotation lock, an append goes to the
// full file rather than rotate beside that process's rotation.
func TestRotationWaitsForTheLock(t *testing.T) {
	l, path := newLog(t)
	if err := os.WriteFile(path, bytes.Repeat([]byte("\n"), MaxSize), 0o600); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ev("bot", "Spawned", "while locked")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".1"); !os.IsNotExist(err) {
		t.Errorf("rotated while another held the lock")
	}
	if h := read(t, path); len(h.Events) != 1 {
		t.Errorf("the event was not appended to the full file: %+v", h)
	}
	_ = unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if err := l.Append(ev("bot", "Spawned", "after")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Errorf("not rotated once the lock was free: %v", err)
	}
}

// Lines that are not valid events are skipped and counted; the rest read.
func TestMalformedLinesSkipped(t *testing.T) {
	_, path := newLog(t)
	good, _ := json.Marshal(ev("bot", "Spawned", "fine"))
	bad := []string{
		"not json",
		`{"time":"2025-01-01T00:00:00Z","name":"bot","type":"Fatal","reason":"X","message":""}`,
		`{"time":"2025-01-01T00:00:00Z","name":"../etc","type":"Normal","reason":"X","message":""}`,
		`{"time":"2025-01-01T00:00:00Z","name":"bot","type":"Normal","reason":"not camel","message":""}`,
		`{"name":"bot","type":"Normal","reason":"X","message":""}`,
		`{"time":"2025-01-01T00:00:00Z","name":"bot","type":"Normal","reason":"X","message":"` + strings.Repeat("z", MaxLine) + `"}`,
		`[1,2,3]`,
	}
	content := strings.Join(bad, "\n") + "\n" + string(good) + "\n" + `{"time":"2025-01-01T00:00:00Z","na`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	h := read(t, path)
	if len(h.Events) != 1 || h.Events[0].Message != "fine" {
		t.Errorf("events %+v, want the one valid line", h.Events)
	}
	if h.Skipped != len(bad) {
		t.Errorf("skipped %d, want %d", h.Skipped, len(bad))
	}
}

// Read filters by name, keeps loop-wide events (no name) out of a filtered
// read, and orders by time across the files.
func TestReadFiltersAndOrders(t *testing.T) {
	l, path := newLog(t)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, e := range []Event{
		{Time: base.Add(3 * time.Second), Name: "a", Type: TypeNormal, Reason: "Third"},
		{Time: base.Add(1 * time.Second), Name: "b", Type: TypeWarning, Reason: "First"},
		{Time: base.Add(2 * time.Second), Name: "", Type: TypeWarning, Reason: "SpecError"},
		{Time: base.Add(4 * time.Second), Name: "a", Type: TypeNormal, Reason: "Fourth"},
	} {
		if err := l.Append(e); err != nil {
			t.Fatal(i, err)
		}
		if i == 1 {
			fi, _ := os.Stat(path)
			if err := l.rotate(fi); err != nil {
				t.Fatal(err)
			}
		}
	}
	reasons := func(h History) string {
		var out []string
		for _, e := range h.Events {
			out = append(out, e.Reason)
		}
		return strings.Join(out, ",")
	}
	if got := reasons(read(t, path)); got != "First,SpecError,Third,Fourth" {
		t.Errorf("all: %s", got)
	}
	if got := reasons(read(t, path, "a")); got != "Third,Fourth" {
		t.Errorf("a: %s", got)
	}
	if got := reasons(read(t, path, "nothing")); got != "" {
		t.Errorf("nothing: %s", got)
	}
}

// A line is never longer than MaxLine, whatever the message: one write,
// never interleaved. A message that escapes to six times its size too.
func TestLineCapped(t *testing.T) {
	for _, msg := range []string{strings.Repeat("m", 100_000), strings.Repeat("\x01", 10_000), strings.Repeat("é", 5000)} {
		data, err := line(ev("bot", "Spawned", msg))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > MaxLine {
			t.Errorf("line of %d bytes, over %d", len(data), MaxLine)
		}
		var e Event
		if err := json.Unmarshal(data, &e); err != nil || e.check() != nil {
			t.Errorf("capped line is not a valid event: %v %v", err, e.check())
		}
	}
}

// A reason that is not CamelCase is cleaned up, never written as a line
// the reader would skip.
func TestReasonCleaned(t *testing.T) {
	for in, want := range map[string]string{"Spawned": "Spawned", "not camel": "notcamel", "9Lives": "Lives", "": "Unknown", "!!": "Unknown", strings.Repeat("A", 300): strings.Repeat("A", maxReason)} {
		if got := cleanReason(in); got != want {
			t.Errorf("cleanReason(%q) = %q, want %q", in, got, want)
		}
		data, err := line(Event{Time: time.Now(), Name: "bot", Type: TypeNormal, Reason: in})
		if err != nil {
			t.Fatal(err)
		}
		var e Event
		if err := json.Unmarshal(data, &e); err != nil || e.check() != nil {
			t.Errorf("reason %q: written line does not read back: %v %v", in, err, e.check())
		}
	}
}

// A daemon's error text quoted in an event loses its token-like values
// and its URLs' queries before it is written.
func TestMessagesRedacted(t *testing.T) {
	l, path := newLog(t)
	const token = "xoxb-1234-5678-SeCrEtVaLuE"
	l.Record("bot", TypeWarning, "Exited", "daemon said: invalid_auth for "+token+"; dial wss://x.example/link/?ticket=TICKET42")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(token)) || bytes.Contains(data, []byte("TICKET42")) {
		t.Errorf("secret written to the history: %s", data)
	}
	if h := read(t, path); len(h.Events) != 1 || !strings.Contains(h.Events[0].Message, "[redacted]") {
		t.Errorf("events %+v", h.Events)
	}
}

// The history is never a symbolic link or a FIFO: appending and reading
// refuse both.
func TestRefusesSymlinkAndFIFO(t *testing.T) {
	l, path := newLog(t)
	target := filepath.Join(filepath.Dir(path), "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ev("bot", "Spawned", "x")); err == nil {
		t.Error("appended through a symbolic link")
	}
	if data, _ := os.ReadFile(target); len(data) != 0 {
		t.Errorf("the link's target was written: %q", data)
	}
	if _, err := Read(path, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Read through a symbolic link: %v", err)
	}
	_ = os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ev("bot", "Spawned", "x")); err == nil {
		t.Error("appended to a FIFO")
	}
	if _, err := Read(path, nil); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Read of a FIFO: %v", err)
	}
}

// A file over the read cap is read from its last maxRead bytes.
func TestReadCapped(t *testing.T) {
	_, path := newLog(t)
	good, _ := json.Marshal(ev("bot", "Spawned", "last"))
	old, _ := json.Marshal(ev("bot", "Spawned", "too far back"))
	filler := bytes.Repeat([]byte(strings.Repeat("-", 999)+"\n"), maxRead/1000+1)
	content := append(append(old, '\n'), filler...)
	content = append(append(content, good...), '\n')
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	h := read(t, path)
	if len(h.Events) != 1 || h.Events[0].Message != "last" {
		t.Errorf("events %+v, want only the last", h.Events)
	}
}

// Follow gives the history, then each event as it is appended, across
// rotations, until its context ends.
func TestFollowAcrossRotation(t *testing.T) {
	l, path := newLog(t)
	if err := l.Append(ev("bot", "Spawned", "before")); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(ev("other", "Spawned", "not followed")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	history := make(chan History, 1)
	got := make(chan Event, 10000)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, []string{"bot"}, func(h History) { history <- h }, func(e Event) { got <- e }, func() {})
	}()
	var h History
	select {
	case h = <-history:
	case <-ctx.Done():
		t.Fatal("no history before the deadline")
	}
	if len(h.Events) != 1 || h.Events[0].Message != "before" {
		t.Fatalf("history %+v", h.Events)
	}
	msg := strings.Repeat("f", 1000)
	const n = 2500 // two rotations
	go func() {
		for i := range n {
			if err := l.Append(ev("bot", "Spawned", fmt.Sprintf("%d %s", i, msg))); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range n {
		select {
		case e := <-got:
			if want := fmt.Sprintf("%d ", i); !strings.HasPrefix(e.Message, want) {
				t.Fatalf("followed event %.10q, want %q", e.Message, want)
			}
		case <-ctx.Done():
			t.Fatalf("event %d not followed before the deadline", i)
		}
	}
	if _, err := os.Stat(path + ".2"); err != nil {
		t.Errorf("the test did not rotate twice: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow: %v", err)
	}
}
