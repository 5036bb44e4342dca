package discord_test

import (
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/relay"
)

// A session's thread deleted under it is that session's loss, not the
// daemon's configuration: its posts, edits and archive are Refused (the
// message goes to failed/), while the same 404 on the parent channel
// stays Blocked.
func TestThreadGoneIsRefusedParentGoneIsBlocked(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m1/0")
	id, err := r.p.Post(ctx(t), part("m2/0", th, "before"))
	if err != nil {
		t.Fatal(err)
	}
	r.f.SetChannelUnknown(th, true) // the thread is deleted

	_, err = r.p.Post(ctx(t), part("m3/0", th, "after"))
	if re := wantKind(t, err, relay.Refused); re.Code != "10003" || !strings.Contains(re.Error(), "thread "+th+" is gone") {
		t.Errorf("post into a deleted thread: %v", re)
	}
	err = r.p.Edit(ctx(t), relay.EditRequest{Thread: th, RemoteID: id, Text: "edited"})
	if re := wantKind(t, err, relay.Refused); re.Code != "10003" {
		t.Errorf("edit in a deleted thread: %v", re)
	}
	err = r.p.Archive(ctx(t), th)
	if re := wantKind(t, err, relay.Refused); re.Code != "10003" {
		t.Errorf("archive of a deleted thread: %v", re)
	}

	r.f.SetChannelUnknown(parent, true)
	_, err = r.p.Post(ctx(t), part("m4/0", "", "a root"))
	if re := wantKind(t, err, relay.Blocked); re.Code != "10003" || re.Reason != relay.ReasonRelayBlocked {
		t.Errorf("post into a deleted parent channel: %v, want blocked", re)
	}
}

// A thread archived and locked (50083) refuses the session's later parts
// for good, with a reason that names the thread.
func TestLockedThreadIsRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m1/0")
	if err := r.p.Archive(ctx(t), th); err != nil {
		t.Fatal(err)
	}
	_, err := r.p.Post(ctx(t), part("m2/0", th, "too late"))
	if re := wantKind(t, err, relay.Refused); re.Code != "50083" || !strings.Contains(re.Error(), "thread "+th+" is archived") {
		t.Errorf("post into a locked thread: %v", re)
	}
}
