package faketelegram_test

import (
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// The three refusals the provider's id probe reads, in the service's
// exact words, through the library's errors.
func TestEditMessageTextAnswersTheProbe(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic.MessageThreadID, Text: "part one "})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(id int, text string) error {
		_, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: id, Text: text})
		return err
	}
	// The same text, as sent (the service compares what it stored, trimmed).
	wantBadRequest(t, edit(ours.ID, "part one "), "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	wantBadRequest(t, edit(int(theirs.ID), "mine"), "message can't be edited")
	wantBadRequest(t, edit(topic.MessageThreadID, "s"), "message can't be edited")
	wantBadRequest(t, edit(1, "x"), "message can't be edited") // the chat's creation
	wantBadRequest(t, edit(int(theirs.ID)+1, "x"), "message to edit not found")

	m, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: ours.ID, Text: "part one, edited"})
	if err != nil || m.Text != "part one, edited" || m.EditDate == 0 || m.MessageThreadID != topic.MessageThreadID {
		t.Fatalf("edit: %+v, %v", m, err)
	}
	if err := f.DeleteMessage(chat, int64(ours.ID)); err != nil {
		t.Fatal(err)
	}
	wantBadRequest(t, edit(ours.ID, "part one, edited"), "message to edit not found")
	got, _ := f.Snapshot().Message(chat, int64(ours.ID))
	if len(got.Edits) != 1 || got.Edits[0] != "part one" || !got.Deleted {
		t.Fatalf("stored %+v", got)
	}
}

// With a link in the text, the link preview is part of the content: the
// same text without the options that turned the preview off is an edit.
func TestEditComparesLinkPreview(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	off := &models.LinkPreviewOptions{IsDisabled: bot.True()}
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "see https://example.org", LinkPreviewOptions: off})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "see https://example.org", LinkPreviewOptions: off})
	wantBadRequest(t, err, "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	if _, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "see https://example.org"}); err != nil {
		t.Fatalf("turning the preview on is an edit: %v", err)
	}
}
