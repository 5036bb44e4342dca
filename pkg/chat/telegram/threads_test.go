package telegram

import (
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// Without topics a session's messages are replies to its root.
func TestPostRepliesToTheRootWithoutTopics(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "session one")
	thread, err := p.StartThread(ctxFor(t), root, "session one")
	if err != nil || thread != root {
		t.Fatalf("StartThread = %q, %v; want the root %s", thread, err, root)
	}
	post(t, p, "m/0", thread, "first")
	if got := f.Snapshot().Texts(faketelegram.DefaultChatID, id64(t, root)); len(got) != 1 || got[0] != "first" {
		t.Errorf("thread holds %q", got)
	}
}

// With topics a session is a topic named from its title; closing it
// closes the topic.
func TestSessionIsATopic(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "session one")
	thread, err := p.StartThread(ctxFor(t), root, "session one")
	if err != nil {
		t.Fatal(err)
	}
	post(t, p, "m/0", thread, "in the topic")
	sn := f.Snapshot()
	if got := sn.Texts(faketelegram.DefaultChatID, id64(t, thread)); len(got) != 1 || got[0] != "in the topic" {
		t.Errorf("topic holds %q", got)
	}
	if err := p.Archive(ctxFor(t), thread); err != nil {
		t.Fatal(err)
	}
	if err := p.Archive(ctxFor(t), thread); err != nil {
		t.Errorf("closing a closed topic again: %v", err)
	}
}
