package systemtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The people of the inbound tests: alice may talk back, mallory may not.
const (
	aliceDiscord, malloryDiscord = "1001", "1002"
	aliceSlack, mallorySlack     = "U0ALICE", "U0MALLORY"
)

// inboundBots are the two bots, alice authorized on both.
func inboundBots() []object {
	return []object{
		{name: "discord", provider: "discord", generation: 1, providerExtra: "    authorizedUserIds: [\"" + aliceDiscord + "\"]\n"},
		{name: "slack", provider: "slack", generation: 1, providerExtra: "    authorizedUserId: " + aliceSlack + "\n"},
	}
}

// inbox returns the inbox files of name, by session/file, with their bytes.
func (e *e2e) inbox(name string) map[string]string {
	e.t.Helper()
	d, err := bus.Paths(e.agentDir, name)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	sessions, _ := os.ReadDir(d.Inbox)
	for _, s := range sessions {
		files, _ := os.ReadDir(filepath.Join(d.Inbox, s.Name()))
		for _, f := range files {
			if strings.HasPrefix(f.Name(), ".") || f.IsDir() {
				continue // a stage; a reply's files
			}
			b, err := os.ReadFile(filepath.Join(d.Inbox, s.Name(), f.Name()))
			if err != nil {
				e.t.Fatal(err)
			}
			out[s.Name()+"/"+f.Name()] = string(b)
		}
	}
	return out
}

// waitInbox waits, woken by the daemon's heartbeats and record writes,
// until name's inbox satisfies cond.
func (e *e2e) waitInbox(name, what string, cond func(map[string]string) bool) map[string]string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var got map[string]string
	waitDirEvents(e.t, ctx, e.paths(name).Dir, func() bool {
		got = e.inbox(name)
		return cond(got)
	}, name+" inbox "+what)
	return got
}

// texts returns the decoded messages of an inbox listing, by text.
func inboxTexts(t *testing.T, files map[string]string) map[string]bus.InboxMessage {
	t.Helper()
	out := map[string]bus.InboxMessage{}
	for name, data := range files {
		m, err := bus.DecodeInbox([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, dup := out[m.Text]; dup {
			t.Fatalf("%q landed twice", m.Text)
		}
		out[m.Text] = m
	}
	return out
}

// openSession publishes a session's open message in name's outbox and
// returns where replies to it go (Discord thread id, Slack root ts).
func (e *e2e) openSession(name, session string) string {
	e.t.Helper()
	d, err := bus.Paths(e.agentDir, name)
	if err != nil {
		e.t.Fatal(err)
	}
	// As an agent's first `reconciler send` does: on a machine whose loop
	// has not made the bus yet (a fleet's standby), the dirs may not exist.
	if err := bus.EnsureDirs(d); err != nil {
		e.t.Fatal(err)
	}
	if _, err := bus.Write(d.Outbox, bus.Message{ID: "open-" + session, Session: session, Event: bus.EventOpen, Title: "Session " + session}); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	title := "Session " + session
	if name == "discord" {
		s, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
			return slices.ContainsFunc(s.Threads, func(th fakediscord.Thread) bool { return strings.Contains(th.Name, title) })
		})
		if err != nil {
			e.t.Fatalf("no thread for %s: %v", session, err)
		}
		i := slices.IndexFunc(s.Threads, func(th fakediscord.Thread) bool { return strings.Contains(th.Name, title) })
		return s.Threads[i].ID
	}
	s, err := e.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		return slices.ContainsFunc(s.Channel("C1"), func(m fakeslack.Message) bool { return strings.Contains(m.Text, title) })
	})
	if err != nil {
		e.t.Fatalf("no root for %s: %v", session, err)
	}
	ch := s.Channel("C1")
	return ch[slices.IndexFunc(ch, func(m fakeslack.Message) bool { return strings.Contains(m.Text, title) })].TS
}

// say injects a person's reply at the fake.
func (e *e2e) say(name, place, user, text string) {
	e.t.Helper()
	var err error
	if name == "discord" {
		_, err = e.f.discord.InjectMessage(place, user, text)
	} else {
		_, err = e.f.slack.InjectMessage("C1", user, text, place)
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// Replies from the authorized user land once each, others' do not; a
// kill -9 of the daemon loses none of those sent while it was down (the
// respawned one reads them from history or gets them redelivered), and
// the files already landed stay byte for byte as they were.
func TestInboundLandsOnceAcrossAKill(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range []string{"discord", "slack"} {
				b, err := os.ReadFile(filepath.Join(e.paths(n).Dir, "daemon.log"))
				ents, _ := os.ReadDir(e.paths(n).Dir)
				st, _ := os.ReadFile(e.paths(n).State)
				t.Logf("%s state.json: %s", n, st)
				t.Logf("%s daemon.log (%v, dir %v):\n%s", n, err, ents, b)
			}
		}
	})
	e.writeSpec(inboundBots()...)
	e.startLoop()
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	for _, c := range []struct{ name, alice, mallory string }{
		{"discord", aliceDiscord, malloryDiscord},
		{"slack", aliceSlack, mallorySlack},
	} {
		place := e.openSession(c.name, "s1")
		e.t.Logf("place %s", place)
		e.say(c.name, place, c.mallory, "not yours to answer")
		e.say(c.name, place, c.alice, "first reply <b> & more")
		first := e.waitInbox(c.name, "holds the first reply", func(m map[string]string) bool { return len(m) >= 1 })
		got := inboxTexts(t, first)
		m, ok := got["first reply <b> & more"]
		if len(got) != 1 || !ok || m.User != c.alice || m.Session != "s1" {
			t.Fatalf("%s inbox: %v", c.name, first)
		}
		e.waitInbox(c.name, "counts mallory's reply as ignored", func(map[string]string) bool {
			rec := fsstore.ReadState(e.paths(c.name))
			return rec.State != nil && rec.State.Relay != nil && rec.State.Relay.InboxIgnored >= 1 && rec.State.Relay.InboxLanded == 1
		})
		pid := e.state(c.name).PID

		e.killDaemons()
		e.say(c.name, place, c.alice, "sent while down 1")
		e.say(c.name, place, c.alice, "sent while down 2")
		e.say(c.name, place, c.mallory, "still not yours")
		e.waitStatus(c.name+" respawned", func(s *reconcile.Status) bool {
			d, ok := daemonStatus(s, c.name)
			return ok && d.Phase == reconcile.PhaseRunning && d.Converged && d.PID != 0 && d.PID != pid
		})
		after := e.waitInbox(c.name, "holds the replies sent while down", func(m map[string]string) bool { return len(m) >= 3 })
		texts := inboxTexts(t, after)
		for _, want := range []string{"first reply <b> & more", "sent while down 1", "sent while down 2"} {
			if _, ok := texts[want]; !ok {
				t.Errorf("%s: %q missing from the inbox %v", c.name, want, after)
			}
		}
		if len(after) != 3 {
			t.Errorf("%s: the inbox holds %d files, want 3: %v", c.name, len(after), after)
		}
		for k, v := range first {
			if after[k] != v {
				t.Errorf("%s: %s changed across the restart: %q, then %q", c.name, k, v, after[k])
			}
		}
	}
}
