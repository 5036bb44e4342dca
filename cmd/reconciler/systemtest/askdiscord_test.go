package systemtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/reconcile"
)

// An ask through a running Discord daemon, decided by clicks on its
// buttons: a stranger's click is refused privately and lands nothing,
// and ask --wait goes on waiting; alice's click decides: ask --wait prints
// her choice alone, the question is edited to say who decided what, with
// no buttons left, one decision is in the inbox, and status counts one
// decided ask and one refused click.
func TestAskDecidedByAClick(t *testing.T) {
	t.Parallel()
	w := newAskWorldOf(t, inboundBots()[0])
	w.f.discord.SetGlobalName(aliceDiscord, "Alice")
	w.startLoop()
	w.waitStatus("discord running", func(s *reconcile.Status) bool { return countReady(s) == 1 })

	p, m := w.startWait("--session", "click-1", "--choice", "Ship", "--choice", "Hold", "Ship build 42?")
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	question := func(s fakediscord.Snapshot) (fakediscord.Message, bool) {
		k := slices.IndexFunc(s.Messages, func(msg fakediscord.Message) bool { return strings.Contains(msg.Content, "Ship build 42?") })
		if k < 0 {
			return fakediscord.Message{}, false
		}
		return s.Messages[k], true
	}
	s, err := w.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		q, ok := question(s)
		return ok && len(q.Buttons()) == 2
	})
	if err != nil {
		t.Fatalf("the question was not posted with two buttons: %v", err)
	}
	q, _ := question(s)
	buttons := q.Buttons()
	// The daemon knows the ask once every part is posted and recorded,
	// before it leaves the outbox; a click before that is left unanswered
	// for the service to deliver again, which Discord does not do.
	w.waitOutboxEmpty(w.name)
	if want := []string{bus.ChoiceData(m.ID, 0), bus.ChoiceData(m.ID, 1)}; !slices.Equal(buttons, want) {
		t.Fatalf("the buttons' data %q, want %q", buttons, want)
	}

	answer := func(who, data string) fakediscord.Answer {
		t.Helper()
		i, err := w.f.discord.Click(q.ChannelID, q.ID, who, data)
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
			got, ok := s.Interaction(i.ID)
			_, acked := got.Acknowledged()
			return ok && acked
		})
		if err != nil {
			t.Fatalf("%s's click was not answered: %v", who, err)
		}
		got, _ := s.Interaction(i.ID)
		a, _ := got.Acknowledged()
		return a
	}
	if a := answer(malloryDiscord, buttons[0]); a.Content != "You may not decide this question." || a.Flags&64 == 0 {
		t.Errorf("the stranger's click was answered %+v; want privately that they may not decide", a)
	}
	p.stillWaiting(t, "a stranger's click")
	answer(aliceDiscord, buttons[1])
	if r := p.result(t); r.code != 0 || r.stdout != "Hold\n" {
		t.Fatalf("ask --wait: exit %d, stdout %q, stderr %q; want 0 and Hold alone", r.code, r.stdout, r.stderr)
	}
	if _, err := w.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		q, ok := question(s)
		return ok && strings.HasSuffix(q.Content, "Ship build 42?\n\nDecided: Hold, by Alice") && len(q.Buttons()) == 0
	}); err != nil {
		q, _ := question(w.f.discord.Snapshot())
		t.Fatalf("the question was not edited to its outcome without buttons: %v; it is %q with %q", err, q.Content, q.Buttons())
	}
	var decisions []bus.InboxMessage
	for _, data := range w.inbox(w.name) {
		d, err := bus.DecodeInbox([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDecision() {
			decisions = append(decisions, d)
		}
	}
	if len(decisions) != 1 || decisions[0].Ask != m.ID || decisions[0].Choice != "Hold" || decisions[0].User != aliceDiscord {
		t.Errorf("the inbox's decisions: %+v; want alice's Hold, once", decisions)
	}
	w.waitStatus("the decision and the refusal counted", func(s *reconcile.Status) bool {
		d, ok := daemonStatus(s, w.name)
		return ok && d.Relay != nil && d.Relay.Asks != nil && *d.Relay.Asks == reconcile.AskStatus{Decided: 1, Refused: 1}
	})
	if got := wideCell(t, runBinary(t, nil, "status", w.name, "-o", "wide", "--agent-dir", w.agentDir), "ASKS"); got != "0/1/0/1" {
		t.Errorf("status -o wide: ASKS %q, want 0/1/0/1", got)
	}
}
