package faketelegram_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

const queryTooOld = "query is too old and response timeout expired or query ID is invalid"

// A click reaches the library's update handler as update.CallbackQuery,
// with the message and its keyboard; the library answers it and edits the
// keyboard away; the update is confirmed by the next poll like any other.
func TestClickThroughTheLibrary(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	got := make(chan *models.CallbackQuery, 10)
	b := newBot(t, f, bot.WithHTTPClient(3*time.Second, &http.Client{Timeout: 10 * time.Second}),
		bot.WithDefaultHandler(func(c context.Context, b *bot.Bot, u *models.Update) {
			if u.CallbackQuery == nil {
				return
			}
			if _, err := b.AnswerCallbackQuery(c, &bot.AnswerCallbackQueryParams{CallbackQueryID: u.CallbackQuery.ID, Text: "Decided: Approve"}); err != nil {
				t.Errorf("answer: %v", err)
			}
			got <- u.CallbackQuery
		}))
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic.MessageThreadID, Text: "Deploy?", ReplyMarkup: approveDeny()})
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Start(c); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	q, err := f.Click(faketelegram.Click{Message: int64(m.ID), From: alice, Data: "01JASK:0"})
	if err != nil {
		t.Fatal(err)
	}
	var cq *models.CallbackQuery
	select {
	case cq = <-got:
	case <-time.After(waitLimit):
		t.Fatal("no callback query")
	}
	msg := cq.Message.Message
	if cq.ID != q.ID || cq.From.ID != alice.ID || cq.From.Username != alice.Username || cq.From.FirstName != alice.FirstName ||
		cq.Data != "01JASK:0" || cq.ChatInstance == "" || msg == nil || msg.ID != m.ID || msg.Chat.ID != chat ||
		msg.MessageThreadID != topic.MessageThreadID || msg.ReplyMarkup == nil || len(msg.ReplyMarkup.InlineKeyboard[0]) != 2 {
		t.Fatalf("callback query %+v, message %+v", cq, msg)
	}
	answer, err := f.AwaitAnswer(ctx(t), q.ID)
	if err != nil || answer.Text != "Decided: Approve" || answer.ShowAlert {
		t.Fatalf("answer %+v, %v", answer, err)
	}
	// Once answered, a query cannot be answered again.
	_, err = b.AnswerCallbackQuery(ctx(t), &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: "again", ShowAlert: true})
	wantBadRequest(t, err, queryTooOld)
	waitFor(t, f, "the update confirmed", func(sn faketelegram.Snapshot) bool {
		return len(sn.Updates) == 1 && sn.Updates[0].Kind == faketelegram.KindCallbackQuery && sn.Updates[0].Confirmed
	})
	if sq, _ := f.Snapshot().Query(q.ID); sq.Answers != 2 || sq.Update != faketelegram.DefaultFirstUpdateID || sq.Thread != int64(topic.MessageThreadID) {
		t.Fatalf("stored %+v", sq)
	}
	// The library's edit without a keyboard removes the buttons; a client
	// that has not seen the edit yet can still press one.
	if _, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "Deploy?\n\nDecided: Approve, by Alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Click(faketelegram.Click{Message: int64(m.ID), From: alice, Data: "01JASK:1"}); err != nil {
		t.Fatalf("a stale button: %v", err)
	}
	select {
	case cq = <-got:
		if cq.Message.Message.ReplyMarkup != nil || cq.Data != "01JASK:1" {
			t.Fatalf("a stale click shows %+v", cq)
		}
	case <-time.After(waitLimit):
		t.Fatal("no callback query for the stale button")
	}
}

// A query not answered within its time is lost: AwaitAnswer says so, and
// a late answer, like one for an id never given, is refused in the
// service's words; a text over 200 characters is refused.
func TestCallbackQueryExpires(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{CallbackTimeout: 300 * time.Millisecond})
	b := newBot(t, f)
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "Deploy?", ReplyMarkup: approveDeny()})
	if err != nil {
		t.Fatal(err)
	}
	q, err := f.Click(faketelegram.Click{Message: int64(m.ID), From: alice, Data: "01JASK:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.AnswerCallbackQuery(ctx(t), &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: strings.Repeat("é", 201)})
	wantBadRequest(t, err, "MESSAGE_TOO_LONG")
	if _, err := f.AwaitAnswer(ctx(t), q.ID); !errors.Is(err, faketelegram.ErrNotAnswered) {
		t.Fatalf("await: %v", err)
	}
	_, err = b.AnswerCallbackQuery(ctx(t), &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID})
	wantBadRequest(t, err, queryTooOld)
	_, err = b.AnswerCallbackQuery(ctx(t), &bot.AnswerCallbackQueryParams{CallbackQueryID: "42"})
	wantBadRequest(t, err, queryTooOld)
	if sq, _ := f.Snapshot().Query(q.ID); sq.Answered || sq.Answers != 2 {
		t.Fatalf("stored %+v", sq)
	}
}

// Clicks are updates like others: allowed_updates without callback_query
// leaves later ones out; a click needs a button the message shows.
func TestClickUpdatesAndRefusals(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	_, r := call(t, f, "sendMessage", url.Values{
		"chat_id": {"-1001000000001"}, "text": {"ask"},
		"reply_markup": {`{"inline_keyboard":[[{"text":"Approve","callback_data":"a:0"},{"text":"Docs","url":"https://example.org"}]]}`},
	})
	if !r.OK {
		t.Fatalf("send: %+v", r)
	}
	theirs, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []faketelegram.Click{
		{Message: 2, From: alice, Data: "a:1"},              // no such button
		{Message: 2, From: alice, Data: ""},                 // the URL button sends no query
		{Message: theirs.ID, From: alice, Data: "a:0"},      // not the bot's
		{Message: 2, Data: "a:0"},                           // nobody
		{Chat: -1009, Message: 2, From: alice, Data: "a:0"}, // no such chat
	} {
		if _, err := f.Click(c); err == nil {
			t.Errorf("%+v clicked", c)
		}
	}
	q, err := f.Click(faketelegram.Click{Message: 2, From: alice, Data: "a:0"})
	if err != nil || q.Update != faketelegram.DefaultFirstUpdateID+1 {
		t.Fatalf("click %+v, %v", q, err)
	}
	if got := updates(t, poll(t, f, 0, "allowed_updates", `["message"]`)); len(got) != 2 {
		t.Fatalf("the message and the click made before: %v", got)
	}
	q, err = f.Click(faketelegram.Click{Message: 2, From: alice, Data: "a:0"})
	if err != nil || q.Update != 0 {
		t.Fatalf("a click left out by allowed_updates: %+v, %v", q, err)
	}
}
