package faketelegram_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// An edit spends the chat's budget as a post does: the daemon paces both,
// and the fake refuses an edit over the budget with the service's 429, as
// the client library reads it, and counts it.
func TestEditsSpendTheBudget(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{Limit: faketelegram.Limit{Burst: 1, Every: 10 * time.Second}})
	b := newBot(t, f)
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "one"})
	if err != nil {
		t.Fatal(err)
	}
	var tooMany *bot.TooManyRequestsError
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "two"})
	if !errors.As(err, &tooMany) || tooMany.RetryAfter < 9 || tooMany.RetryAfter > 10 {
		t.Fatalf("an edit over the budget: %v", err)
	}
	_, err = b.EditForumTopic(ctx(t), &bot.EditForumTopicParams{ChatID: chat, MessageThreadID: 1, Name: "x"})
	if !errors.As(err, &tooMany) {
		t.Fatalf("a topic's edit over the budget: %v", err)
	}
	if sn := f.Snapshot(); sn.RateLimited != 2 || sn.Texts(chat, 0)[0] != "one" {
		t.Fatalf("RateLimited %d, texts %q", sn.RateLimited, sn.Texts(chat, 0))
	}
}
