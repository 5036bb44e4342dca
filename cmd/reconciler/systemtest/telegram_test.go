package systemtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The people of the Telegram tests: alice may talk back, mallory may not.
var (
	aliceTelegram   = faketelegram.User{ID: 100000040, FirstName: "Alice"}
	malloryTelegram = faketelegram.User{ID: 100000041, FirstName: "Mallory"}
)

// telegramBot is a Telegram bot in the fake's forum supergroup, posting
// everything, alice authorized.
func telegramBot() object {
	return object{name: "tg", provider: "telegram", generation: 1, extra: "  verbosity: verbose\n",
		providerExtra: fmt.Sprintf("    authorizedUserIds: [\"%d\"]\n", aliceTelegram.ID)}
}

// telegramTopic writes session's open message and returns its forum
// topic once the relay made it and posted there.
func (e *e2e) telegramTopic(session string) int64 {
	e.t.Helper()
	d := e.bus("tg")
	if _, err := bus.Write(d.Outbox, bus.Message{ID: "open-" + session, Session: session, Event: bus.EventOpen, Title: "Session " + session, Text: "opened"}); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var topic int64
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		for _, tp := range s.Topics {
			if tp.Name == "Session "+session && !tp.Deleted {
				topic = tp.ID
			}
		}
		return topic != 0 && len(telegramTexts(s, topic)) > 0
	}); err != nil {
		e.t.Fatalf("no topic for %s: %v", session, err)
	}
	return topic
}

func (e *e2e) bus(name string) bus.Dirs {
	e.t.Helper()
	d, err := bus.Paths(e.agentDir, name)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		e.t.Fatal(err)
	}
	return d
}

// telegramTexts are the texts of the messages in topic, in order, the
// bot's and people's alike.
func telegramTexts(s faketelegram.Snapshot, topic int64) []string {
	var out []string
	for _, m := range s.Messages {
		if m.Thread == topic && m.Service == "" && !m.Deleted {
			out = append(out, m.Text)
		}
	}
	return out
}

// A burst into one topic, the daemon killed with SIGKILL in the middle of
// it and answers lost after the service took the post (accepted, then
// the connection reset): every message is in the topic exactly once, in
// order, and nothing failed.
func TestTelegramBurstExactlyOnceAcrossKill9(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(telegramBot())
	e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	topic := e.telegramTopic("burst")
	d := e.bus("tg")

	const n = 60
	e.f.telegram.AcceptThenFail(3, faketelegram.FailCut)
	for i := range n {
		if _, err := bus.Write(d.Outbox, bus.Message{ID: fmt.Sprintf("b%03d", i), Session: "burst", Text: fmt.Sprintf("burst line %03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return len(telegramTexts(s, topic)) >= 1+n/4 }); err != nil {
		t.Fatalf("the burst did not start: %v", err)
	}
	pid := e.state("tg").PID
	e.killDaemons()
	e.f.telegram.AcceptThenFail(3, faketelegram.FailCut)
	e.waitRespawned("tg", pid)
	s, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return len(telegramTexts(s, topic)) >= 1+n })
	if err != nil {
		t.Fatalf("the burst did not finish: %v; the topic holds %d", err, len(telegramTexts(s, topic)))
	}
	e.waitOutboxEmpty("tg")
	got := telegramTexts(s, topic)[1:]
	for i := range n {
		if i >= len(got) || got[i] != fmt.Sprintf("burst line %03d", i) {
			t.Fatalf("the topic holds %q, want burst lines 0..%d once each, in order", got, n-1)
		}
	}
	if len(got) != n {
		t.Fatalf("the topic holds %d lines, want %d: %q", len(got), n, got)
	}
	if failed, _ := os.ReadDir(d.Failed); len(failed) != 0 {
		t.Fatalf("failed/ holds %d files", len(failed))
	}
	if s.RateLimited != 0 {
		t.Fatalf("the fake answered %d requests 429: the daemon posted past the budget it paces to (postsPerMinute)", s.RateLimited)
	}
}

// Replies written while the daemon was down (killed with SIGKILL) land
// once each when it is back, from the updates the service kept for it;
// mallory's do not; and a second kill lands nothing twice.
func TestTelegramRepliesWhileDownLandOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(telegramBot())
	e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	topic := e.telegramTopic("s1")

	for round := 1; round <= 2; round++ {
		pid := e.state("tg").PID
		e.killDaemons()
		for _, in := range []faketelegram.Inbound{
			{From: aliceTelegram, Thread: topic, Text: fmt.Sprintf("while down %d.a", round)},
			{From: malloryTelegram, Thread: topic, Text: "not yours to answer"},
			{From: aliceTelegram, Thread: topic, Text: fmt.Sprintf("while down %d.b", round)},
		} {
			if _, err := e.f.telegram.InjectMessage(in); err != nil {
				t.Fatal(err)
			}
		}
		e.waitRespawned("tg", pid)
		want := 2 * round
		got := inboxTexts(t, e.waitInbox("tg", "holds the replies sent while down", func(m map[string]string) bool { return len(m) >= want }))
		if len(got) != want {
			t.Fatalf("round %d: the inbox holds %d replies, want %d: %v", round, len(got), want, got)
		}
		for r := 1; r <= round; r++ {
			for _, x := range []string{"a", "b"} {
				m, ok := got[fmt.Sprintf("while down %d.%s", r, x)]
				if !ok || m.User != strconv.FormatInt(aliceTelegram.ID, 10) || m.Session != "s1" {
					t.Fatalf("round %d: reply %d.%s: %+v (%v) in %v", round, r, x, m, ok, got)
				}
			}
		}
	}
}

// A second consumer of the bot's token (another copy of the bot) makes
// the daemon Degraded TokenInUse, never Ready, until it goes away.
func TestTelegramSecondConsumerIsTokenInUse(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(telegramBot())
	e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	stop := e.f.telegram.StartRival()
	e.waitStatus("TokenInUse", func(s *reconcile.Status) bool {
		st, ok := daemonStatus(s, "tg")
		return ok && st.Reason == daemonproto.ReasonTokenInUse && !ready(st)
	})
	stop()
	e.waitStatus("ready again", func(s *reconcile.Status) bool { return countReady(s) == 1 })
}

// ready reports whether st's Ready condition is true.
func ready(st reconcile.DaemonStatus) bool {
	for _, c := range st.Conditions {
		if c.Type == "Ready" {
			return c.Status == "True"
		}
	}
	return false
}

// waitOutboxEmpty waits until name's outbox holds no message.
func (e *e2e) waitOutboxEmpty(name string) {
	e.t.Helper()
	d := e.bus(name)
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitDirEvents(e.t, ctx, d.Outbox, func() bool {
		ents, err := os.ReadDir(d.Outbox)
		if err != nil {
			return false
		}
		for _, en := range ents {
			if strings.HasSuffix(en.Name(), ".json") && !strings.HasPrefix(en.Name(), ".") {
				return false
			}
		}
		return true
	}, filepath.Base(d.Dir)+" outbox empty")
}

// waitRespawned waits until name runs converged again, as a pid other
// than pid (the one killed).
func (e *e2e) waitRespawned(name string, pid int) {
	e.t.Helper()
	e.waitStatus(name+" respawned", func(s *reconcile.Status) bool {
		st, ok := daemonStatus(s, name)
		return ok && st.Phase == reconcile.PhaseRunning && st.Converged && st.PID != 0 && st.PID != pid
	})
}
