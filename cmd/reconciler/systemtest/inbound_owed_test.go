package systemtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/reconcile"
)

// waitDaemonLog waits until name's daemon.log holds substr.
func (e *e2e) waitDaemonLog(name, substr string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	path := filepath.Join(e.paths(name).Dir, "daemon.log")
	waitDirEvents(e.t, ctx, e.paths(name).Dir, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), substr)
	}, name+" logs "+substr)
}

// A reply that could not land (its session's inbox could not be written,
// as on a full disk) lands on its own once the inbox can be written
// again: no reconnect (Discord's gateway session stays the same) and no
// redelivery (Slack's fake redelivers only on a closed socket here, as
// Slack gives up after its retries), exactly once, beside a later reply
// that landed meanwhile. Meanwhile status says a reply waits to land.
func TestInboundReplyThatCouldNotLandLandsOnItsOwn(t *testing.T) {
	t.Parallel()
	f := startFakesWith(t, fakeslack.Options{AckTimeout: -1})
	e := newE2EWith(t, f)
	t.Cleanup(func() {
		if t.Failed() {
			e.logDaemonLogs()
		}
	})
	e.writeSpec(inboundBots()...)
	e.startLoop()
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	for _, c := range []struct{ name, alice string }{{"discord", aliceDiscord}, {"slack", aliceSlack}} {
		place := e.openSession(c.name, "s1")
		e.say(c.name, place, c.alice, "warming up")
		e.waitInbox(c.name, "holds the first reply", func(m map[string]string) bool { return len(m) == 1 })
		connects := e.connects(c.name)

		// A file where the session's inbox directory goes: every write
		// there fails, whoever runs the test.
		d, err := bus.Paths(e.agentDir, c.name)
		if err != nil {
			t.Fatal(err)
		}
		dir, away := filepath.Join(d.Inbox, "s1"), filepath.Join(d.Inbox, ".s1-away")
		if err := os.Rename(dir, away); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		e.say(c.name, place, c.alice, "sent while the disk was full")
		e.waitDaemonLog(c.name, "did not land")
		e.waitInboxStatus(c.name, "shows the reply waiting", func(in reconcile.InboxStatus) bool { return in.Waiting == 1 })
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(away, dir); err != nil {
			t.Fatal(err)
		}
		e.say(c.name, place, c.alice, "sent once it had room")

		got := e.waitInbox(c.name, "holds the reply that could not land", func(m map[string]string) bool { return len(m) >= 3 })
		texts := inboxTexts(t, got) // fails on a text landed twice
		for _, want := range []string{"warming up", "sent while the disk was full", "sent once it had room"} {
			if _, ok := texts[want]; !ok {
				t.Errorf("%s: %q missing from the inbox %v", c.name, want, got)
			}
		}
		if len(got) != 3 {
			t.Errorf("%s: the inbox holds %d files, want 3: %v", c.name, len(got), got)
		}
		e.waitInboxStatus(c.name, "shows nothing waiting", func(in reconcile.InboxStatus) bool { return in.Waiting == 0 && in.Landed == 3 })
		if now := e.connects(c.name); now != connects {
			t.Errorf("%s: the transport connected again (%d connections, then %d): the reply was to land without", c.name, connects, now)
		}
		if c.name == "slack" {
			for _, env := range f.slack.Snapshot().Envelopes {
				// The fakes serve a second app (slackApp2), which gets
				// its own envelope of every event, as on Slack.
				if env.AppToken == slackApp && env.MessageTS == texts["sent while the disk was full"].ID && env.Deliveries != 1 {
					t.Errorf("the envelope of the reply was delivered %d times: a redelivery, not the retry, landed it", env.Deliveries)
				}
			}
		}
	}
}

// connects counts the connections name's transport opened at its fake:
// Discord identifies and resumes, Slack sockets.
func (e *e2e) connects(name string) int {
	if name == "discord" {
		st := e.f.discord.Snapshot().Tokens[discordToken]
		return st.Identifies + st.Resumes
	}
	return e.f.slack.Snapshot().Apps[slackApp].Connections
}
