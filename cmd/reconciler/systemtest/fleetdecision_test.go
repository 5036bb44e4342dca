package systemtest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// An ask written on a machine that does not run the bot is posted by the
// owner (its outbox goes through etcd), the owner's daemon decides it on
// the authorized click, and the decision, like a reply, lands once in
// every machine's inbox: an agent on any machine sees the answer to its
// own question.
func TestFleetDecisionReachesEveryMachinesInbox(t *testing.T) {
	fl := startFleet(t, 3, inboundBots()[1])
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()
	if _, err := fl.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.Apps[slackApp].Live == 1 }); err != nil {
		t.Fatalf("no Socket Mode connection: %v", err)
	}
	_, other := fl.frNonOwner("slack")
	place := other.e.openSession("slack", "s1")

	d := other.e.bus("slack")
	ask := bus.Message{ID: "q1", Session: "s1", Event: bus.EventAsk, Text: "May I deploy?",
		Choices: bus.DefaultChoices, ExpiresAt: bus.InboxTime(time.Now().Add(time.Hour))}
	if _, err := bus.Write(d.Outbox, ask); err != nil {
		t.Fatal(err)
	}
	var question fakeslack.Message
	if _, err := fl.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		ch := s.Thread("C1", place)
		i := slices.IndexFunc(ch, func(m fakeslack.Message) bool { return len(m.Buttons) == 2 })
		if i >= 0 {
			question = ch[i]
		}
		return i >= 0
	}); err != nil {
		t.Fatalf("the ask was not posted with its buttons: %v", err)
	}
	// Clicked once the owner recorded it (its file left the outbox).
	fl.waitOutboxesEmpty("slack")
	if _, err := fl.f.slack.Click(fakeslack.Click{App: slackApp, Channel: "C1", TS: question.TS, ActionID: bus.ChoiceData("q1", 0), User: aliceSlack}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			sn := fl.f.slack.Snapshot()
			t.Logf("envelopes %+v\nephemerals %+v", sn.Envelopes, sn.Ephemerals)
		}
	})
	for _, m := range fl.machines {
		// Watched where the decision lands: a standby has no daemon
		// directory to watch.
		dir := filepath.Join(m.e.bus("slack").Inbox, "s1")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		waitDirEvents(t, ctx, dir, func() bool { got = m.e.inbox("slack"); return len(got) >= 1 }, m.id+"'s inbox holds the decision")
		if len(got) != 1 {
			t.Fatalf("%s's inbox holds %v, want the decision once", m.id, got)
		}
		for name, data := range got {
			dec, err := bus.DecodeInbox([]byte(data))
			if err != nil || !dec.IsDecision() || dec.Ask != "q1" || dec.Choice != "Approve" || dec.User != aliceSlack {
				t.Fatalf("%s's inbox %s: %+v, %v", m.id, name, dec, err)
			}
		}
	}
	if _, err := fl.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		th := s.Thread("C1", place)
		i := slices.IndexFunc(th, func(m fakeslack.Message) bool { return m.TS == question.TS })
		return i >= 0 && len(th[i].Buttons) == 0
	}); err != nil {
		t.Fatalf("the question kept its buttons: %v", err)
	}
}

// waitOutboxesEmpty waits until no machine's outbox of name holds a
// message.
func (fl *fleet) waitOutboxesEmpty(name string) {
	for _, m := range fl.machines {
		m.e.waitOutboxEmpty(name)
	}
}
