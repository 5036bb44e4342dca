package providertest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/relay"
)

// A place that went away never fails a message (DESIGN 5, "Nothing
// vanishes without a word"). With the channel out of the bot's reach
// (Discord: Unknown Channel for it and its threads; Slack:
// channel_not_found) the session is blocked, RelayBlocked, its backlog
// kept in outbox/, and posted in its thread once the channel is back.
// With the session's thread (Slack: its root and replies) deleted while
// the channel is reachable, the place is made again, named as before,
// its root saying it continues a deleted thread, and the session goes on
// there, after a restart too. failed/ stays empty throughout.
func placeWentAway(t *testing.T, s Subject) {
	t.Parallel()
	rig := s.Start(t, 0)
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rc := startRelay(t, s, rig, dir)
	title := "Build"
	write := func(id, text string) {
		t.Helper()
		if _, err := bus.Write(dirs.Outbox, bus.Message{ID: id, Session: "s1", Title: title, Text: text, Level: bus.LevelAction}); err != nil {
			t.Fatal(err)
		}
	}

	write("m1", "one")
	first := waitPlaces(ctx, t, rig, "the session's first post", func(ps []Place) bool {
		return len(ps) == 1 && len(ps[0].Replies) == 1
	})[0]
	waitRelay(ctx, t, rc, "m1 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })

	// The channel out of reach: blocked, nothing failed, the backlog kept.
	rig.LoseChannel(true)
	write("m2", "two")
	write("m3", "three")
	waitRelay(ctx, t, rc, "blocked with two pending", func(s *ownership.RelayState) bool {
		return s.Blocked != nil && s.Blocked.Reason == relay.ReasonRelayBlocked && s.Pending == 2
	})
	noneFailed(t, dirs)
	for _, id := range []string{"m2", "m3"} {
		if _, err := os.Stat(filepath.Join(dirs.Outbox, id+".json")); err != nil {
			t.Fatalf("%s left the outbox while the channel was out of reach: %v", id, err)
		}
	}

	// Back: posted in the session's thread, in order, on its own.
	rig.LoseChannel(false)
	ps := waitPlaces(ctx, t, rig, "the backlog posted in the first thread", func(ps []Place) bool {
		return len(ps) == 1 && len(ps[0].Replies) == 3
	})
	if got := ps[0].Replies; !strings.Contains(got[1], "two") || !strings.Contains(got[2], "three") {
		t.Fatalf("the backlog in the first thread: %q", got)
	}
	waitRelay(ctx, t, rc, "unblocked and drained", func(s *ownership.RelayState) bool { return s.Pending == 0 && s.Blocked == nil })
	noneFailed(t, dirs)

	// The thread deleted by a moderator: made again, as before, and the
	// session goes on there.
	rig.DeletePlace(first)
	title = "Deploy" // the place made again keeps the session's first title
	write("m4", "four")
	again := waitPlaces(ctx, t, rig, "the session's place made again", func(ps []Place) bool {
		return len(ps) > 0 && ps[len(ps)-1].ID != first.ID && len(ps[len(ps)-1].Replies) == 1
	})
	last := again[len(again)-1]
	if !strings.HasPrefix(last.Root, first.Root+"\n") || !strings.Contains(last.Root, "continues this session's thread, which was deleted") {
		t.Errorf("root of the place made again %q; want the first root %q and a line saying it continues a deleted thread", last.Root, first.Root)
	}
	if last.Name != first.Name {
		t.Errorf("thread made again named %q, want %q as before", last.Name, first.Name)
	}
	if !strings.Contains(last.Replies[0], "four") {
		t.Errorf("the place made again holds %q, want four", last.Replies)
	}
	waitRelay(ctx, t, rc, "m4 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 && s.Failed == 0 })

	// After a restart the journal says where the session is now.
	stopRelay(t, rc)
	rc = startRelay(t, s, rig, dir)
	write("m5", "five")
	ps = waitPlaces(ctx, t, rig, "m5 in the place made again", func(ps []Place) bool {
		return len(ps) > 0 && ps[len(ps)-1].ID == last.ID && len(ps[len(ps)-1].Replies) == 2
	})
	if n := len(ps); n != len(again) {
		t.Errorf("%d roots after the restart, want %d: nothing made a third time", n, len(again))
	}
	waitRelay(ctx, t, rc, "m5 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })

	// A message replacing one posted in the deleted thread cannot edit
	// it there: it is posted in the session's place as it is now.
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m6", Session: "s1", Text: "one, revised", Level: bus.LevelAction, Replaces: "m1"}); err != nil {
		t.Fatal(err)
	}
	ps = waitPlaces(ctx, t, rig, "m6 in the place made again", func(ps []Place) bool {
		return len(ps) > 0 && len(ps[len(ps)-1].Replies) == 3
	})
	if got := ps[len(ps)-1].Replies[2]; !strings.Contains(got, "one, revised") {
		t.Errorf("the replacement posted as %q", got)
	}
	waitRelay(ctx, t, rc, "m6 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })

	// Deleted again before the session closes: a third place, named as
	// the first, gets the closing line (and, on Discord, is closed).
	second := ps[len(ps)-1]
	rig.DeletePlace(second)
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m7", Session: "s1", Event: bus.EventClose}); err != nil {
		t.Fatal(err)
	}
	ps = waitPlaces(ctx, t, rig, "the close in a third place", func(ps []Place) bool {
		last := Place{}
		if len(ps) > 0 {
			last = ps[len(ps)-1]
		}
		return last.ID != second.ID && len(last.Replies) == 1 && (!s.ClosesThreads || last.Closed)
	})
	if last := ps[len(ps)-1]; last.Replies[0] != "Session closed." || last.Name != first.Name || !strings.HasPrefix(last.Root, first.Root+"\n") {
		t.Errorf("the third place %+v; want the first root and name, and the closing line", last)
	}
	waitRelay(ctx, t, rc, "m7 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })
	noneFailed(t, dirs)
	sent, err := os.ReadDir(dirs.Sent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range sent {
		names = append(names, e.Name())
	}
	if want := []string{"m1.json", "m2.json", "m3.json", "m4.json", "m5.json", "m6.json", "m7.json"}; !slices.Equal(names, want) {
		t.Errorf("sent/ holds %v, want %v", names, want)
	}
}

// A thread deleted between a session's closing line and its archive
// leaves nothing to close: the close is done, nothing is made again,
// nothing fails.
func threadDeletedBeforeArchive(t *testing.T, s Subject) {
	t.Parallel()
	rig := s.Start(t, 0)
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var thread atomic.Value
	rc := startRelay(t, s, rig, dir, func(step, key string) {
		if step == "archive:before-attempt" && key == "m2/archive" {
			rig.DeletePlace(thread.Load().(Place))
		}
	})
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m1", Session: "s1", Event: bus.EventOpen, Title: "Build", Text: "one"}); err != nil {
		t.Fatal(err)
	}
	ps := waitPlaces(ctx, t, rig, "the session opened", func(ps []Place) bool { return len(ps) == 1 && len(ps[0].Replies) == 1 })
	thread.Store(ps[0])
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m2", Session: "s1", Event: bus.EventClose}); err != nil {
		t.Fatal(err)
	}
	waitRelay(ctx, t, rc, "m2 sent", func(s *ownership.RelayState) bool {
		_, err := os.Stat(filepath.Join(dirs.Sent, "m2.json"))
		return err == nil && s.Pending == 0
	})
	if ps := rig.Places(); len(ps) != 1 || len(ps[0].Replies) != 2 {
		t.Errorf("the channel holds %+v; want the one place, its closing line posted, nothing made again", ps)
	}
	noneFailed(t, dirs)
}
