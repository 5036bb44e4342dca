package chat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/relay"
)

// placeRig is a fake service as this test needs it: the channel taken
// out of the bot's reach and given back, a session's place deleted by a
// moderator, and what the channel holds.
type placeRig interface {
	url() string
	provider() string
	loseChannel(lost bool)
	deletePlace(p place)
	places() []place
}

// place is a session's place at the service: its root, the thread's name
// (Discord) and the texts posted in it, in order.
type place struct {
	id, thread, root, name string
	replies                []string
	closed                 bool // Discord: archived and locked
}

type discordPlaces struct{ f *fakediscord.Server }

func (d discordPlaces) url() string      { return d.f.URL() }
func (d discordPlaces) provider() string { return "discord" }

// loseChannel: Discord answers 10003 for the channel and its threads,
// as when the bot loses the channel.
func (d discordPlaces) loseChannel(lost bool) { d.f.SetChannelUnknown(discordParent, lost) }

func (d discordPlaces) deletePlace(p place) { d.f.SetChannelUnknown(p.thread, true) }

func (d discordPlaces) places() []place {
	s := d.f.Snapshot()
	var out []place
	for _, m := range s.In(discordParent) {
		p := place{id: m.ID, root: m.Content}
		for _, th := range s.Threads {
			if th.StarterID == m.ID {
				p.thread, p.name, p.closed = th.ID, th.Name, th.Archived && th.Locked
				for _, r := range s.In(th.ID) {
					p.replies = append(p.replies, r.Content)
				}
			}
		}
		out = append(out, p)
	}
	return out
}

type slackPlaces struct{ f *fakeslack.Server }

func (s slackPlaces) url() string      { return s.f.URL() }
func (s slackPlaces) provider() string { return "slack" }

func (s slackPlaces) loseChannel(lost bool) { s.f.SetChannelUnknown(slackChannel, lost) }

// deletePlace deletes the root and every reply, as an admin clearing a
// thread does: only then is a Slack thread gone.
func (s slackPlaces) deletePlace(p place) {
	for _, m := range s.f.Snapshot().Thread(slackChannel, p.id) {
		s.f.DeleteMessage(slackChannel, m.TS)
	}
	s.f.DeleteMessage(slackChannel, p.id)
}

func (s slackPlaces) places() []place {
	sn := s.f.Snapshot()
	var out []place
	for _, m := range sn.Channel(slackChannel) {
		p := place{id: m.TS, thread: m.TS, root: m.Text}
		for _, r := range sn.Thread(slackChannel, m.TS) {
			p.replies = append(p.replies, r.Text)
		}
		out = append(out, p)
	}
	return out
}

// A place that went away never fails a message (DESIGN 5, "Nothing
// vanishes without a word"). With the channel out of the bot's reach
// (Discord: Unknown Channel for it and its threads; Slack:
// channel_not_found) the session is blocked, RelayBlocked, its backlog
// kept in outbox/, and posted in its thread once the channel is back.
// With the session's thread (Slack: its root and replies) deleted while
// the channel is reachable, the place is made again, named as before,
// its root saying it continues a deleted thread, and the session goes on
// there, after a restart too. failed/ stays empty throughout.
func TestRelayPlaceWentAwayFailsNothing(t *testing.T) {
	t.Run("discord", func(t *testing.T) {
		t.Parallel()
		f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{discordToken}, Channels: []string{discordParent}, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		runPlaceWentAway(t, discordPlaces{f})
	})
	t.Run("slack", func(t *testing.T) {
		t.Parallel()
		f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{slackToken}, Channels: []string{slackChannel}, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		runPlaceWentAway(t, slackPlaces{f})
	})
}

func runPlaceWentAway(t *testing.T, rig placeRig) {
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, crashName)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rc := startPlaceRelay(t, rig, dir)
	title := "Build"
	write := func(id, text string) {
		t.Helper()
		if _, err := bus.Write(dirs.Outbox, bus.Message{ID: id, Session: "s1", Title: title, Text: text, Level: bus.LevelAction}); err != nil {
			t.Fatal(err)
		}
	}

	write("m1", "one")
	first := waitPlaces(ctx, t, rig, "the session's first post", func(ps []place) bool {
		return len(ps) == 1 && len(ps[0].replies) == 1
	})[0]
	waitRelay(ctx, t, rc, "m1 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })

	// The channel out of reach: blocked, nothing failed, the backlog kept.
	rig.loseChannel(true)
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
	rig.loseChannel(false)
	ps := waitPlaces(ctx, t, rig, "the backlog posted in the first thread", func(ps []place) bool {
		return len(ps) == 1 && len(ps[0].replies) == 3
	})
	if got := ps[0].replies; !strings.Contains(got[1], "two") || !strings.Contains(got[2], "three") {
		t.Fatalf("the backlog in the first thread: %q", got)
	}
	waitRelay(ctx, t, rc, "unblocked and drained", func(s *ownership.RelayState) bool { return s.Pending == 0 && s.Blocked == nil })
	noneFailed(t, dirs)

	// The thread deleted by a moderator: made again, as before, and the
	// session goes on there.
	rig.deletePlace(first)
	title = "Deploy" // the place made again keeps the session's first title
	write("m4", "four")
	again := waitPlaces(ctx, t, rig, "the session's place made again", func(ps []place) bool {
		return len(ps) > 0 && ps[len(ps)-1].id != first.id && len(ps[len(ps)-1].replies) == 1
	})
	last := again[len(again)-1]
	if !strings.HasPrefix(last.root, first.root+"\n") || !strings.Contains(last.root, "continues this session's thread, which was deleted") {
		t.Errorf("root of the place made again %q; want the first root %q and a line saying it continues a deleted thread", last.root, first.root)
	}
	if last.name != first.name {
		t.Errorf("thread made again named %q, want %q as before", last.name, first.name)
	}
	if !strings.Contains(last.replies[0], "four") {
		t.Errorf("the place made again holds %q, want four", last.replies)
	}
	waitRelay(ctx, t, rc, "m4 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 && s.Failed == 0 })

	// After a restart the journal says where the session is now.
	stopRelay(t, rc)
	rc = startPlaceRelay(t, rig, dir)
	write("m5", "five")
	ps = waitPlaces(ctx, t, rig, "m5 in the place made again", func(ps []place) bool {
		return len(ps) > 0 && ps[len(ps)-1].id == last.id && len(ps[len(ps)-1].replies) == 2
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
	ps = waitPlaces(ctx, t, rig, "m6 in the place made again", func(ps []place) bool {
		return len(ps) > 0 && len(ps[len(ps)-1].replies) == 3
	})
	if got := ps[len(ps)-1].replies[2]; !strings.Contains(got, "one, revised") {
		t.Errorf("the replacement posted as %q", got)
	}
	waitRelay(ctx, t, rc, "m6 sent", func(s *ownership.RelayState) bool { return s.Pending == 0 })

	// Deleted again before the session closes: a third place, named as
	// the first, gets the closing line (and, on Discord, is closed).
	second := ps[len(ps)-1]
	rig.deletePlace(second)
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m7", Session: "s1", Event: bus.EventClose}); err != nil {
		t.Fatal(err)
	}
	ps = waitPlaces(ctx, t, rig, "the close in a third place", func(ps []place) bool {
		last := place{}
		if len(ps) > 0 {
			last = ps[len(ps)-1]
		}
		return last.id != second.id && len(last.replies) == 1 && (rig.provider() == "slack" || last.closed)
	})
	if last := ps[len(ps)-1]; last.replies[0] != "Session closed." || last.name != first.name || !strings.HasPrefix(last.root, first.root+"\n") {
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

// A Discord thread deleted between a session's closing line and its
// archive leaves nothing to close: the close is done, nothing is made
// again, nothing fails.
func TestRelayThreadDeletedBeforeItsArchive(t *testing.T) {
	t.Parallel()
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{discordToken}, Channels: []string{discordParent}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	rig := discordPlaces{f}
	dir := t.TempDir()
	dirs, err := bus.Paths(dir, crashName)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var thread atomic.Value
	rc := startPlaceRelay(t, rig, dir, func(step, key string) {
		if step == "archive:before-attempt" && key == "m2/archive" {
			f.SetChannelUnknown(thread.Load().(string), true)
		}
	})
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m1", Session: "s1", Event: bus.EventOpen, Title: "Build", Text: "one"}); err != nil {
		t.Fatal(err)
	}
	ps := waitPlaces(ctx, t, rig, "the session opened", func(ps []place) bool { return len(ps) == 1 && len(ps[0].replies) == 1 })
	thread.Store(ps[0].thread)
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "m2", Session: "s1", Event: bus.EventClose}); err != nil {
		t.Fatal(err)
	}
	waitRelay(ctx, t, rc, "m2 sent", func(s *ownership.RelayState) bool {
		_, err := os.Stat(filepath.Join(dirs.Sent, "m2.json"))
		return err == nil && s.Pending == 0
	})
	if ps := rig.places(); len(ps) != 1 || len(ps[0].replies) != 2 {
		t.Errorf("the channel holds %+v; want the one place, its closing line posted, nothing made again", ps)
	}
	noneFailed(t, dirs)
}

// startPlaceRelay runs the daemon's relay (chat.NewRelay: the provider's
// poster, the bus under dir) with short back-offs, and step, when given,
// at each labelled step of its requests.
func startPlaceRelay(t *testing.T, rig placeRig, dir string, step ...func(step, key string)) chat.RelayComponent {
	t.Helper()
	var o chat.RelayOptions
	if len(step) > 0 {
		o.Step = step[0]
	}
	o.MinBackoff, o.MaxBackoff = 10*time.Millisecond, 100*time.Millisecond
	o.Settle = 3 * time.Second
	rc, err := chat.NewRelay(testProvider(rig.provider(), 0), crashConfig(rig.provider(), rig.url()), dir, testr.New(t), o)(fenceOnly{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRelay(t, rc) })
	return rc
}

func stopRelay(t *testing.T, rc chat.RelayComponent) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rc.Stop(ctx); err != nil {
		t.Errorf("stopping the relay: %v", err)
	}
}

// waitRelay waits, on the relay's change notices, until its state
// satisfies cond.
func waitRelay(ctx context.Context, t *testing.T, rc chat.RelayComponent, what string, cond func(*ownership.RelayState) bool) {
	t.Helper()
	for {
		if s := rc.RelayState(); s != nil && cond(s) {
			return
		}
		select {
		case <-rc.RelayChanged():
		case <-rc.Done():
			t.Fatalf("waiting for %s: the relay ended: %v", what, rc.Err())
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v; relay state %+v", what, ctx.Err(), describe(rc.RelayState()))
		}
	}
}

// waitPlaces waits, on the fake's change notices, until what the
// channel holds satisfies cond.
func waitPlaces(ctx context.Context, t *testing.T, rig placeRig, what string, cond func([]place) bool) []place {
	t.Helper()
	ok := func() bool { return cond(rig.places()) }
	var err error
	switch r := rig.(type) {
	case discordPlaces:
		_, err = r.f.WaitFor(ctx, func(fakediscord.Snapshot) bool { return ok() })
	case slackPlaces:
		_, err = r.f.WaitFor(ctx, func(fakeslack.Snapshot) bool { return ok() })
	}
	if err != nil {
		t.Fatalf("waiting for %s: %v; the channel holds %+v", what, err, rig.places())
	}
	return rig.places()
}

func noneFailed(t *testing.T, dirs bus.Dirs) {
	t.Helper()
	entries, err := os.ReadDir(dirs.Failed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dirs.Failed, e.Name()))
		t.Errorf("failed/%s: %s", e.Name(), data)
	}
}

func describe(s *ownership.RelayState) string {
	if s == nil {
		return "none"
	}
	b := "none"
	if s.Blocked != nil {
		b = s.Blocked.Reason + ": " + s.Blocked.Message
	}
	return fmt.Sprintf("pending %d, failed %d, blocked %s", s.Pending, s.Failed, b)
}
