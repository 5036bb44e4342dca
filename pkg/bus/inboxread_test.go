package bus

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// land puts m in the inbox as the inbound engine does: staged, then published.
func land(t *testing.T, d Dirs, m InboxMessage) {
	t.Helper()
	file, err := StageInbox(d, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := PublishInbox(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
}

// The reader returns each landed message once, oldest first across
// sessions, and passes over, saying so once, what is not a message of its
// directory; a stage is not landed yet, so it is neither.
func TestInboxReaderScan(t *testing.T) {
	d := testDirs(t)
	late, early := inboxMsg(), inboxMsg()
	early.ID, early.Session, early.TS = "1", "s-2", "2026-12-01T08:00:00.000Z"
	land(t, d, late)
	land(t, d, early)
	stray := inboxMsg()
	stray.ID = "999"
	if _, err := StageInbox(d, stray); err != nil {
		t.Fatal(err)
	}
	// Another session's message in s-1's directory, under its own name.
	other := inboxMsg()
	other.ID, other.Session = "77", "s-2"
	data, _ := EncodeInbox(other)
	name, _ := InboxFileName(other)
	misplaced := filepath.Join(d.Inbox, "s-1", name)
	if err := os.WriteFile(misplaced, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(d.Inbox, "s-3")); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	r := NewInboxReader(d, "", func(path, reason string) { skipped = append(skipped, path+": "+reason) })
	for i, want := range [][]InboxMessage{{early, late}, nil} {
		msgs, sessions, err := r.Scan()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(msgs, want) && (len(msgs) > 0 || len(want) > 0) {
			t.Errorf("scan %d: %+v, want %+v", i, msgs, want)
		}
		if len(sessions) != 2 {
			t.Errorf("scan %d: sessions %q, want s-1 and s-2", i, sessions)
		}
		if len(skipped) != 2 || !r.Skipped() {
			t.Errorf("scan %d: skipped %q, want the misplaced file and the link, once each", i, skipped)
		}
	}
	if !strings.Contains(strings.Join(skipped, "\n"), misplaced+`: holds a message of session "s-2"`) {
		t.Errorf("skipped %q does not name the misplaced file", skipped)
	}
}

// A follower is handed what is there, then a message landing in a session
// made after it started, woken by the watch: the resync is an hour.
func TestFollowInboxDeliversWhatLands(t *testing.T) {
	d := testDirs(t)
	first := inboxMsg()
	land(t, d, first)
	later := inboxMsg()
	later.ID, later.Session = "2", "s-new"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []InboxMessage
	err := FollowInbox(ctx, NewInboxReader(d, "", nil), time.Hour, func(msgs []InboxMessage) error {
		got = append(got, msgs...)
		if len(got) == 1 && len(msgs) == 1 {
			land(t, d, later)
		}
		if len(got) == 2 {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []InboxMessage{first, later}) {
		t.Fatalf("delivered %+v, want %+v then %+v (deadline: %v)", got, first, later, ctx.Err())
	}
}
