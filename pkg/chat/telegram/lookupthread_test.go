package telegram

import (
	"errors"
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// A topic the service made but whose answer was cut is found by a
// process that never saw it, under its id and name: no second topic.
func TestLookupThreadFindsATopicWhoseAnswerWasLost(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "Crash matrix · session")
	f.FailAfter("createForumTopic", 1, faketelegram.FailCut)
	if _, err := p.StartThread(ctxFor(t), root, "Crash matrix"); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("StartThread = %v, want uncertain", err)
	}
	if _, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, Text: "someone else"}); err != nil {
		t.Fatal(err)
	}
	part := relay.Part{Key: "m/thread", Thread: root, Text: "Crash matrix"}
	id, found, err := newPoster(t, f).LookupThread(ctxFor(t), part)
	if err != nil || !found {
		t.Fatalf("LookupThread = %q %v %v, want found", id, found, err)
	}
	topics := f.Snapshot().TopicsIn(faketelegram.DefaultChatID)
	if len(topics) != 1 || strconvI(topics[0].ID) != id || topics[0].Name != "Crash matrix" {
		t.Errorf("found %s; topics %+v", id, topics)
	}
}

// A topic the service never made is not found once the probe passed
// the top of the chat: it may be made.
func TestLookupThreadNotMade(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "Lost · session")
	f.FailBefore("createForumTopic", 1, faketelegram.FailCut)
	if _, err := p.StartThread(ctxFor(t), root, "Lost"); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("StartThread = %v, want uncertain", err)
	}
	part := relay.Part{Key: "m/thread", Thread: root, Text: "Lost"}
	if id, found, err := newPoster(t, f).LookupThread(ctxFor(t), part); err != nil || found {
		t.Fatalf("LookupThread = %q %v %v, want not found", id, found, err)
	}
}

// Another session's topic of the same name, which the relay confirmed,
// is never taken: the lookup skips it and proves this one's absent.
func TestLookupThreadLeavesConfirmedTopicsAlone(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "Same · one")
	other := post(t, p, "n/root", "", "Same · two")
	theirs, err := p.StartThread(ctxFor(t), other, "Same")
	if err != nil {
		t.Fatal(err)
	}
	part := relay.Part{Key: "m/thread", Thread: root, Text: "Same", Confirmed: func(id string) bool { return id == theirs || id == other }}
	if id, found, err := newPoster(t, f).LookupThread(ctxFor(t), part); err != nil || found {
		t.Fatalf("LookupThread = %q %v %v, want not found (topic %s is another session's)", id, found, err, theirs)
	}
}

// Without topics a session's thread is its root's replies: nothing was
// made, nothing is asked.
func TestLookupThreadWithoutTopics(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "Plain · session")
	if id, found, err := newPoster(t, f).LookupThread(ctxFor(t), relay.Part{Key: "m/thread", Thread: root, Text: "Plain"}); err != nil || !found || id != root {
		t.Fatalf("LookupThread = %q %v %v, want the root %s", id, found, err, root)
	}
}

func TestTopicAnswerOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Answer
	}{
		{nil, Edited}, // renamed
		{bad("TOPIC_NOT_MODIFIED"), NotModified},
		{bad("TOPIC_ID_INVALID"), NotFound},
		{bad("message thread not found"), NotFound},
		{bad("not enough rights to edit the topic"), Unknown},
		{errors.New("connection reset"), Unknown},
	} {
		if got := topicAnswerOf(tc.err); got != tc.want {
			t.Errorf("topicAnswerOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// People's messages between a session's root and its lost topic read
// like no topic, as missing ids do; a message known to lie above them
// (another session's root, confirmed later) proves them no top of the
// chat, and the topic is found rather than made twice.
func TestLookupThreadGoesThroughChatterBelowTheKnownTop(t *testing.T) {
	f := startFake(t, true)
	p := newPoster(t, f)
	root := post(t, p, "m/root", "", "Busy · session")
	for i := 0; i < topGap+2; i++ {
		if _, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, Text: "chatter"}); err != nil {
			t.Fatal(err)
		}
	}
	after := p.Floor(root) // as journaled: the chatter went unseen
	f.FailAfter("createForumTopic", 1, faketelegram.FailCut)
	if _, err := p.StartThread(ctxFor(t), root, "Busy"); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("StartThread = %v, want uncertain", err)
	}
	other := post(t, p, "n/root", "", "Another · session")

	fresh := newPoster(t, f) // after a crash: the relay's journal tells it what it confirmed
	fresh.Saw(root)
	fresh.Saw(other)
	part := relay.Part{Key: "m/thread", Thread: root, Text: "Busy", After: after,
		Confirmed: func(id string) bool { return id == root || id == other }}
	id, found, err := fresh.LookupThread(ctxFor(t), part)
	topics := f.Snapshot().TopicsIn(faketelegram.DefaultChatID)
	if err != nil || !found || len(topics) != 1 || strconvI(topics[0].ID) != id {
		t.Fatalf("LookupThread = %q %v %v, want the one topic, %+v", id, found, err, topics)
	}
}

// A topic lost above a long stretch of chatter the daemon was sent: the
// probe starts at the chat's top known before the attempt, not at the
// root, whose probe would reach its bound in the chatter.
func TestLookupThreadStartsAtTheTopKnownBeforeTheAttempt(t *testing.T) {
	f := startFake(t, true)
	dir := t.TempDir()
	p := newPosterIn(t, f, dir)
	root := post(t, p, "m/root", "", "Long · session")
	in := newInbox()
	_, stop := run(t, f, in, dir)
	var last faketelegram.Message
	for i := 0; i < maxProbe+10; i++ {
		var err error
		if last, err = f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 42}, Text: "chatter"}); err != nil {
			t.Fatal(err)
		}
	}
	waitLanded(t, in, last.ID)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	after := p.Floor(root) // as journaled with the attempt
	f.FailAfter("createForumTopic", 1, faketelegram.FailCut)
	if _, err := p.StartThread(ctxFor(t), root, "Long"); relay.KindOf(err) != relay.Uncertain {
		t.Fatalf("StartThread = %v, want uncertain", err)
	}
	part := relay.Part{Key: "m/thread", Thread: root, Text: "Long", After: after,
		Confirmed: func(id string) bool { return id == root }}
	id, found, err := newPosterIn(t, f, dir).LookupThread(ctxFor(t), part)
	topics := f.Snapshot().TopicsIn(faketelegram.DefaultChatID)
	if err != nil || !found || len(topics) != 1 || strconvI(topics[0].ID) != id {
		t.Fatalf("LookupThread = %q %v %v, want the one topic, %+v", id, found, err, topics)
	}
}
