package faketelegram_test

import (
	"testing"

	"github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// editForumTopic with the same name changes nothing and says so: a probe
// for "is this id a topic named so"; a new name takes an id.
func TestEditForumTopic(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "session 7"})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(id int, name string) error {
		_, err := b.EditForumTopic(ctx(t), &bot.EditForumTopicParams{ChatID: chat, MessageThreadID: id, Name: name})
		return err
	}
	wantBadRequest(t, edit(topic.MessageThreadID, "session 7"), "TOPIC_NOT_MODIFIED")
	wantBadRequest(t, edit(1, "session 7"), "TOPIC_ID_INVALID")                       // the chat's creation
	wantBadRequest(t, edit(topic.MessageThreadID+1, "session 7"), "TOPIC_ID_INVALID") // above the top
	if err := edit(topic.MessageThreadID, "session 7, renamed"); err != nil {
		t.Fatal(err)
	}
	sn := f.Snapshot()
	if tp := sn.TopicsIn(chat); len(tp) != 1 || tp[0].Name != "session 7, renamed" {
		t.Fatalf("topics %+v", tp)
	}
	if m, _ := sn.Message(chat, int64(topic.MessageThreadID)+1); m.Service != faketelegram.ServiceTopicEdited {
		t.Fatalf("the rename's service message: %+v", m)
	}
	if _, err := b.ReopenForumTopic(ctx(t), &bot.ReopenForumTopicParams{ChatID: chat, MessageThreadID: topic.MessageThreadID}); err == nil {
		t.Fatal("reopened an open topic")
	}
	if _, err := b.CloseForumTopic(ctx(t), &bot.CloseForumTopicParams{ChatID: chat, MessageThreadID: topic.MessageThreadID}); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.ReopenForumTopic(ctx(t), &bot.ReopenForumTopicParams{ChatID: chat, MessageThreadID: topic.MessageThreadID}); !ok || err != nil {
		t.Fatalf("reopen: %v", err)
	}
}
