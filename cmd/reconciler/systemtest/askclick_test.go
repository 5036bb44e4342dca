package systemtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/reconcile"
)

// An ask through a running Telegram daemon, clicked at the fake as people
// click: a stranger's click is refused and lands nothing; the authorized
// click decides, and the daemon is killed with SIGKILL while it answers
// (the decision durable, the answer not given, the update not
// confirmed); the respawned daemon gets the click again and answers that
// it was decided, and the inbox holds the decision once; the question
// shows who decided, its buttons gone. An ask nobody decides expires and
// says so.
func TestAskDecidedOnceAcrossAKillBetweenClickAndAnswer(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(telegramBot())
	e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	topic := e.telegramTopic("s1")
	d := e.bus("tg")
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()

	if _, err := bus.Write(d.Outbox, bus.Message{ID: "q1", Session: "s1", Event: bus.EventAsk, Text: "May I deploy?",
		Choices: bus.DefaultChoices, ExpiresAt: bus.InboxTime(time.Now().Add(time.Hour))}); err != nil {
		t.Fatal(err)
	}
	question := e.telegramQuestion(ctx, topic)
	e.waitOutboxEmpty("tg") // recorded by the daemon: its file left the outbox

	click := func(u faketelegram.User, choice int) faketelegram.CallbackQuery {
		t.Helper()
		q, err := e.f.telegram.Click(faketelegram.Click{Message: question, From: u, Data: bus.ChoiceData("q1", choice)})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := click(malloryTelegram, 0)
	if a, err := e.f.telegram.AwaitAnswer(ctx, q.ID); err != nil || a.Text != (inbound.Verdict{Kind: inbound.Refused}).Answer() {
		t.Fatalf("a stranger's click was answered %+v (%v)", a, err)
	}

	hold := e.f.telegram.HoldNext("answerCallbackQuery")
	pid := e.state("tg").PID
	click(aliceTelegram, 0)
	select {
	case <-hold.Arrived():
	case <-ctx.Done():
		t.Fatal("the daemon did not answer the click")
	}
	// The answer comes only after the decision is durable: it is there.
	if got := decisions(t, e.inbox("tg")); len(got) != 1 {
		t.Fatalf("decisions before the answer: %v, want the one", got)
	}
	e.killDaemons()
	hold.Release()
	e.waitRespawned("tg", pid)
	// The click comes again (its update was never confirmed), and a
	// second one of alice's: both answered that it was decided.
	second := click(aliceTelegram, 1)
	want := inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Approve", By: aliceTelegram.FirstName}.Answer()
	if a, err := e.f.telegram.AwaitAnswer(ctx, second.ID); err != nil || a.Text != want {
		t.Fatalf("a second click was answered %+v (%v), want %q", a, err, want)
	}
	got := decisions(t, e.inbox("tg"))
	if len(got) != 1 || got[0].Choice != "Approve" || got[0].User != "100000040" || got[0].Ask != "q1" {
		t.Fatalf("decisions %+v, want one: Approve by alice", got)
	}
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		m := telegramMessage(s, question)
		return len(m.Keyboard.Data()) == 0 && strings.Contains(m.Text, "Decided: Approve, by "+aliceTelegram.FirstName)
	}); err != nil {
		t.Fatalf("the question was not edited to its outcome: %v", err)
	}

	// An ask nobody decides.
	if _, err := bus.Write(d.Outbox, bus.Message{ID: "q2", Session: "s1", Event: bus.EventAsk, Text: "Still there?",
		Choices: []string{"Yes"}, ExpiresAt: bus.InboxTime(time.Now().Add(3 * time.Second))}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		for _, m := range s.Messages {
			if m.Thread == topic && strings.HasPrefix(m.Text, "▶ Still there?") && strings.Contains(m.Text, "Expired: no decision was made in time.") {
				return len(m.Keyboard.Data()) == 0
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the unanswered ask was not edited to say it expired: %v", err)
	}
}

// telegramQuestion waits for the bot's message with buttons in topic and
// returns its id.
func (e *e2e) telegramQuestion(ctx context.Context, topic int64) int64 {
	e.t.Helper()
	var id int64
	if _, err := e.f.telegram.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		for _, m := range s.Messages {
			if m.Thread == topic && len(m.SentKeyboard.Data()) > 0 {
				id = m.ID
			}
		}
		return id != 0
	}); err != nil {
		e.t.Fatalf("no question with buttons in topic %d: %v", topic, err)
	}
	return id
}

func telegramMessage(s faketelegram.Snapshot, id int64) faketelegram.Message {
	for _, m := range s.Messages {
		if m.ID == id && m.Chat == faketelegram.DefaultChatID {
			return m
		}
	}
	return faketelegram.Message{}
}

// decisions are the decisions among an inbox listing's files.
func decisions(t *testing.T, files map[string]string) []bus.InboxMessage {
	t.Helper()
	var out []bus.InboxMessage
	for name, data := range files {
		m, err := bus.DecodeInbox([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.IsDecision() {
			out = append(out, m)
		}
	}
	return out
}
