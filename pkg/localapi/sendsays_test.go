package localapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/spec"
)

// send says when the daemon's verbosity will leave the message out, by
// the relay's own rule, and what lean would do when the spec as read
// here cannot say.
func TestLeftOutNote(t *testing.T) {
	lean := &spec.Daemon{Config: spec.Config{Name: "d1", Verbosity: spec.VerbosityLean}}
	verbose := &spec.Daemon{Config: spec.Config{Name: "d1", Verbosity: spec.VerbosityVerbose}}
	info := bus.Message{ID: "m", Session: "s", Event: bus.EventMessage, Level: bus.LevelInfo}
	with := func(event, level string) bus.Message { m := info; m.Event, m.Level = event, level; return m }
	for _, c := range []struct {
		name string
		d    *spec.Daemon
		m    bus.Message
		says string // "" means nothing said
	}{
		{"lean, info", lean, info, "d1 has verbosity: lean, which leaves info messages out: this one is not posted (it moves to sent/ and counts as filtered)"},
		{"lean, action", lean, with(bus.EventMessage, bus.LevelAction), ""},
		{"lean, error", lean, with(bus.EventMessage, bus.LevelError), ""},
		{"lean, open at info", lean, with(bus.EventOpen, bus.LevelInfo), ""},
		{"lean, close at info", lean, with(bus.EventClose, bus.LevelInfo), ""},
		{"verbose, info", verbose, info, ""},
		{"unknown here, info", nil, info, "the spec as read here does not say d1's verbosity: under lean, the default, this info message is not posted"},
		{"unknown here, action", nil, with(bus.EventMessage, bus.LevelAction), ""},
	} {
		got := leftOutNote("d1", c.d, c.m)
		if c.says == "" && got != "" || !strings.Contains(got, c.says) {
			t.Errorf("%s: %q, want %q", c.name, got, c.says)
		}
	}
}

// A message for a session the relay's journal records as closed is
// refused (exit 1, naming the session and when it closed) and nothing
// is written; a close again, another session, and a retry of a message
// posted before the close are not refused.
func TestSendRefusesAClosedSession(t *testing.T) {
	d := sendWorld(t)
	dirs, err := bus.Paths(d.AgentDir, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	posted := bus.Message{ID: "m0", Session: "s", Event: bus.EventMessage, Text: "before", Level: bus.LevelAction}
	if _, err := bus.Write(dirs.Outbox, posted); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dirs.Outbox, "m0.json"), filepath.Join(dirs.Sent, "m0.json")); err != nil {
		t.Fatal(err)
	}
	closedAt := time.Date(2026, 12, 5, 20, 30, 0, 0, time.UTC)
	j, err := bus.OpenJournal(dirs.JournalPath())
	if err != nil {
		t.Fatal(err)
	}
	at := closedAt.UnixMilli()
	err = j.Append(context.Background(),
		bus.Record{Op: bus.OpDone, ID: "o1", Part: bus.PartRoot, Session: "s", Remote: "r1", At: at - 2000},
		bus.Record{Op: bus.OpDone, ID: "o1", Part: bus.PartThread, Session: "s", Remote: "t1", At: at - 1000},
		bus.Record{Op: bus.OpDone, ID: "c1", Part: bus.PartArchive, Session: "s", Thread: "t1", Remote: "t1", At: at},
		bus.Record{Op: bus.OpDone, ID: "o2", Part: bus.PartRoot, Session: "open", Remote: "r2", At: at})
	if cerr := j.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	_, err = d.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "late", Session: "s", Text: "too late"}})
	want := `send to d1: message "late": session s was closed at 2026-12-05T20:30:00Z`
	if ExitCode(err) != exitFailed || !strings.Contains(err.Error(), want) {
		t.Fatalf("a message for the closed session: %v (exit %d), want exit 1 with %q", err, ExitCode(err), want)
	}
	_, err = d.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "reopen", Session: "s", Event: bus.EventOpen}})
	if ExitCode(err) != exitFailed {
		t.Errorf("an open of the closed session: %v, want exit 1", err)
	}
	if n := outboxFiles(t, dirs); len(n) != 0 {
		t.Fatalf("outbox holds %v after the refusals, want nothing", n)
	}
	for _, m := range []bus.Message{
		{ID: "c2", Session: "s", Event: bus.EventClose},
		{ID: "x1", Session: "open", Text: "still open"},
		posted,
	} {
		if resp, err := d.Send(t.Context(), SendRequest{Name: "d1", Message: m}); err != nil || resp.ID != m.ID {
			t.Errorf("send %s to session %s: %+v, %v; want accepted", m.ID, m.Session, resp, err)
		}
	}

	// A close still queued: what comes after it in id order would fail
	// once the relay posts the close; what comes before it is posted.
	if resp, err := d.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "q5", Session: "open", Event: bus.EventClose}}); err != nil {
		t.Fatalf("close of the open session: %+v, %v", resp, err)
	}
	_, err = d.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "q6", Session: "open", Text: "after the close", Level: bus.LevelAction}})
	if want := `session open is closing: its close (message "q5") is queued before this one`; ExitCode(err) != exitFailed || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("a message after a queued close: %v (exit %d), want exit 1 with %q", err, ExitCode(err), want)
	}
	if _, err := d.Send(t.Context(), SendRequest{Name: "d1", Message: bus.Message{ID: "q4", Session: "open", Text: "before the close", Level: bus.LevelAction}}); err != nil {
		t.Errorf("a message ahead of a queued close: %v, want accepted", err)
	}
}
