package discord_test

import (
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/relay"
)

// A session's thread deleted under it, its channel still reachable, is
// Gone (the relay makes it again), for a post, an edit, an archive and a
// lookup alike. The channel out of reach (Discord then answers Unknown
// Channel for its threads too) blocks instead: nothing is lost, nothing
// is refused. And a root deleted before its thread was started is Gone.
func TestThreadDeletedIsGoneChannelUnreachableIsBlocked(t *testing.T) {
	t.Parallel()
	r := newRig(t, discord.Options{}, fakediscord.Options{})
	th := r.thread(t, "m1/0")
	id, err := r.p.Post(ctx(t), part("m2/0", th, "before"))
	if err != nil {
		t.Fatal(err)
	}

	r.f.SetChannelUnknown(parent, true) // the bot lost the channel
	_, err = r.p.Post(ctx(t), part("m3/0", th, "while out of reach"))
	if re := wantKind(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || !strings.Contains(re.Error(), "cannot be reached") {
		t.Errorf("post into the thread of an unreachable channel: %v, want blocked", re)
	}
	err = r.p.Edit(ctx(t), relay.EditRequest{Thread: th, RemoteID: id, Text: "edited"})
	wantKind(t, err, relay.Blocked)
	_, err = r.p.Post(ctx(t), part("m4/0", "", "a root"))
	if re := wantKind(t, err, relay.Blocked); re.Code != "10003" || re.Reason != relay.ReasonRelayBlocked {
		t.Errorf("post into an unreachable parent channel: %v, want blocked", re)
	}
	r.f.SetChannelUnknown(parent, false) // back: the thread is as it was
	if _, err := r.p.Post(ctx(t), part("m3/0", th, "while out of reach")); err != nil {
		t.Fatalf("post once the channel is back: %v", err)
	}

	r.f.SetChannelUnknown(th, true) // a moderator deleted the thread
	_, err = r.p.Post(ctx(t), part("m5/0", th, "after"))
	if re := wantKind(t, err, relay.Gone); re.Code != "10003" || !strings.Contains(re.Error(), "thread "+th+" was deleted") {
		t.Errorf("post into a deleted thread: %v", re)
	}
	err = r.p.Edit(ctx(t), relay.EditRequest{Thread: th, RemoteID: id, Text: "edited"})
	wantKind(t, err, relay.Gone)
	wantKind(t, r.p.Archive(ctx(t), th), relay.Gone)
	old := part("m5/0", th, "after")
	old.FirstAttempt = time.Now().Add(-time.Hour) // past the nonce window: a history read
	_, _, err = r.p.Lookup(ctx(t), old, id)
	wantKind(t, err, relay.Gone)

	root := r.root(t, "m6/root", "a root")
	r.f.DeleteMessage(parent, root) // deleted before its thread was started
	_, err = r.p.StartThread(ctx(t), root, "s")
	if re := wantKind(t, err, relay.Gone); re.Code != "10008" {
		t.Errorf("thread from a deleted root: %v", re)
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
