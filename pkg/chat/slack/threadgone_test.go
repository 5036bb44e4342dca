package slack_test

import (
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
)

// A session's root deleted with its replies, the channel still reachable,
// is Gone for a reply, a lookup in its thread and an edit there (the
// relay makes the place again); a root deleted while replies remain is a
// placeholder whose thread goes on; the channel out of reach blocks, for
// a request in the channel and for one that met thread_not_found.
func TestDeletedRootIsGoneChannelUnreachableIsBlocked(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	root := post(t, e, "m1/root", "", "root")
	reply := post(t, e, "m1/0", root, "first")

	if !e.f.DeleteMessage(channel, root) {
		t.Fatal("root not deleted")
	}
	post(t, e, "m2/0", root, "under a deleted root with replies: the thread goes on")

	e.f.SetChannelUnknown(channel, true)
	_, err := e.p.Post(ctx(t), relay.Part{Key: "m3/0", Thread: root, Text: "x"})
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "channel_not_found" {
		t.Fatalf("reply in an unknown channel: %+v", re)
	}
	e.f.SetChannelUnknown(channel, false)

	for _, m := range e.f.Snapshot().Thread(channel, root) {
		e.f.DeleteMessage(channel, m.TS)
	}
	e.f.DeleteMessage(channel, root) // the placeholder too: nothing is left
	_, err = e.p.Post(ctx(t), relay.Part{Key: "m3/0", Thread: root, Text: "x"})
	if re := relayErr(t, err, relay.Gone); re.Code != "thread_not_found" || !strings.Contains(re.Error(), "root "+root+" was deleted") {
		t.Fatalf("reply to a deleted root: %+v", re)
	}
	_, _, err = e.p.Lookup(ctx(t), relay.Part{Key: "m3/0", Thread: root, Text: "x", FirstAttempt: time.Now()}, reply)
	relayErr(t, err, relay.Gone)
	err = e.p.Edit(ctx(t), relay.EditRequest{Thread: root, RemoteID: reply, Text: "x"})
	relayErr(t, err, relay.Gone)

	// The channel archived meanwhile: Slack still reads its threads, so
	// the lookup meets thread_not_found, and the channel check tells
	// that the channel is what is out of reach.
	e.f.SetChannelArchived(channel, true)
	_, _, err = e.p.Lookup(ctx(t), relay.Part{Key: "m3/0", Thread: root, Text: "x", FirstAttempt: time.Now()}, reply)
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "is_archived" {
		t.Fatalf("lookup in a deleted thread of an archived channel: %+v", re)
	}
}

// An edit of a reply deleted by itself, its thread still there, stays
// refused: the part is gone, not the session's place.
func TestDeletedReplyEditIsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	root := post(t, e, "m1/root", "", "root")
	post(t, e, "m1/0", root, "first")
	reply := post(t, e, "m1/1", root, "second")
	e.f.DeleteMessage(channel, reply)
	err := e.p.Edit(ctx(t), relay.EditRequest{Thread: root, RemoteID: reply, Text: "x"})
	if re := relayErr(t, err, relay.Refused); re.Code != "message_not_found" {
		t.Fatalf("edit of a deleted reply: %+v", re)
	}
}
