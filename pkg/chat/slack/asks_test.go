package slack_test

import (
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// An ask's last part is posted with its buttons (Slack checks them: the
// fake refuses what Slack would), found again by its metadata, and the
// edit that shows its outcome leaves it none.
func TestAskPostedWithButtonsEditedWithout(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	root := post(t, e, "m1/0", "", "session")
	part := relay.Part{Key: "q01/0", Thread: root, Text: "May I run `rm -rf build`? <!here>", FirstAttempt: time.Now(),
		Choices: []relay.Choice{{Data: "q01:0", Label: "Approve"}, {Data: "q01:1", Label: "Deny"}}, Ping: []string{"U0ALICE01"}}
	ts, err := e.p.Post(ctx(t), part)
	if err != nil {
		t.Fatal(err)
	}
	m := e.f.Snapshot().Thread(channel, root)[0]
	if m.TS != ts || len(m.Buttons) != 2 || m.Buttons[0].Value != "q01:0" || m.Buttons[0].ActionID != "q01:0" ||
		m.Buttons[0].Style != "primary" || m.Buttons[1].Text != "Deny" || m.Buttons[1].Style != "" {
		t.Fatalf("posted %+v", m)
	}
	if want := "<@U0ALICE01>\nMay I run `rm -rf build`? &lt;!here&gt;"; m.Text != want {
		t.Fatalf("text %q, want %q", m.Text, want)
	}
	if found, ok, err := e.p.Lookup(ctx(t), part, ""); err != nil || !ok || found != ts {
		t.Fatalf("Lookup = %q %v %v", found, ok, err)
	}
	if err := e.p.Edit(ctx(t), relay.EditRequest{Thread: root, RemoteID: ts, Text: "May I? Decided: Deny, by alice"}); err != nil {
		t.Fatal(err)
	}
	m = e.f.Snapshot().Thread(channel, root)[0]
	if m.Buttons != nil || m.Blocks != nil || m.Text != "May I? Decided: Deny, by alice" {
		t.Fatalf("after the edit %+v", m)
	}
}
