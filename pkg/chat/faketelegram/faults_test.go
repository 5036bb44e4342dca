package faketelegram_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// Accepted then reset: the message is stored, the client gets no answer;
// the probe then finds it by its id as "not modified".
func TestAcceptThenReset(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	f.AcceptThenFail(1, faketelegram.FailCut)
	_, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "lost answer"})
	if err == nil || errors.Is(err, bot.ErrorBadRequest) {
		t.Fatalf("a cut answer: %v", err)
	}
	sn := f.Snapshot()
	if got := sn.Texts(chat, 0); len(got) != 1 || got[0] != "lost answer" || sn.Posts != 1 || sn.Relayed != 1 {
		t.Fatalf("stored %q, observed %+v", got, sn.Observed)
	}
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: 2, Text: "lost answer"})
	wantBadRequest(t, err, "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: 3, Text: "lost answer"})
	wantBadRequest(t, err, "message to edit not found")

	// The same text posted again is a double the oracle names.
	if _, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "lost answer"}); err != nil {
		t.Fatal(err)
	}
	if d := f.Snapshot().Duplicates; len(d) != 1 {
		t.Fatalf("duplicates %q", d)
	}
}

func TestFailBeforeAndAfter(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	f.FailBefore("sendMessage", 1, faketelegram.Fail502)
	_, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "never stored"})
	if err == nil || !strings.Contains(err.Error(), "decode response body") {
		t.Fatalf("a 502 page: %v", err)
	}
	f.FailAfter("createForumTopic", 1, faketelegram.FailCut)
	if _, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"}); err == nil {
		t.Fatal("a cut createForumTopic answered")
	}
	sn := f.Snapshot()
	if len(sn.Texts(chat, 0)) != 0 || len(sn.TopicsIn(chat)) != 1 || sn.TopicsIn(chat)[0].ID != 2 {
		t.Fatalf("messages %+v", sn.Messages)
	}
	var cut bool
	for _, r := range f.Requests() {
		cut = cut || (strings.HasSuffix(r.Path, "/createForumTopic") && r.Status == 0)
	}
	if !cut {
		t.Fatalf("request log %+v", f.Requests())
	}
}

func TestHoldNext(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	h := f.HoldNext("") // the next post, whichever method
	done := make(chan error, 1)
	go func() {
		_, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "held"})
		done <- err
	}()
	<-h.Arrived()
	if sn := f.Snapshot(); len(sn.Texts(chat, 0)) != 0 || sn.Held != 1 {
		t.Fatalf("stored before the release: %+v", sn.Observed)
	}
	h.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRevokedAndUnavailable(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	f.SetTokenRevoked(true)
	if _, err := b.GetMe(ctx(t)); !errors.Is(err, bot.ErrorUnauthorized) {
		t.Fatalf("revoked: %v", err)
	}
	f.SetTokenRevoked(false)
	f.SetUnavailable(true)
	if _, err := b.GetMe(ctx(t)); err == nil {
		t.Fatal("answered during an outage")
	}
	f.SetUnavailable(false)
	if _, err := b.GetMe(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// A chat over its budget is answered 429 with retry_after, and only that
// chat; RateLimitNext injects one.
func TestRateLimitPerChat(t *testing.T) {
	t.Parallel()
	other := int64(-1002000000002)
	f := start(t, faketelegram.Options{
		Chats: []faketelegram.Chat{{ID: chat}, {ID: other}},
		Limit: faketelegram.Limit{Burst: 2, Every: 10 * time.Second},
	})
	b := newBot(t, f)
	send := func(c int64) error {
		_, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: c, Text: "m" + time.Now().String()})
		return err
	}
	for range 2 {
		if err := send(chat); err != nil {
			t.Fatal(err)
		}
	}
	var tooMany *bot.TooManyRequestsError
	if err := send(chat); !errors.As(err, &tooMany) || tooMany.RetryAfter < 9 || tooMany.RetryAfter > 10 {
		t.Fatalf("third post: %v", err)
	}
	if err := send(other); err != nil {
		t.Fatalf("the other chat is not limited: %v", err)
	}
	if err := f.SetLimit(chat, faketelegram.Limit{}); err != nil {
		t.Fatal(err)
	}
	f.RateLimitNext(1, 2500*time.Millisecond)
	resp, r := call(t, f, "sendMessage", map[string][]string{"chat_id": {"-1001000000001"}, "text": {"x"}})
	if resp.StatusCode != http.StatusTooManyRequests || r.Parameters.RetryAfter != 3 || r.Description != "Too Many Requests: retry after 3" || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("injected 429: %d %+v %v", resp.StatusCode, r, resp.Header)
	}
	if sn := f.Snapshot(); sn.RateLimited != 2 {
		t.Fatalf("RateLimited %d", sn.RateLimited)
	}
}

// SetSlow delays the Bot API's answers (under /bot), not the work.
func TestSlowDelaysTheAnswer(t *testing.T) {
	t.Parallel()
	f, err := faketelegram.Start(faketelegram.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.SetSlow(time.Minute)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		resp, err := http.PostForm(f.URL()+"/bot"+f.Token()+"/sendMessage", map[string][]string{"chat_id": {"-1001000000001"}, "text": {"slow"}})
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	waitFor(t, f, "the post stored", func(sn faketelegram.Snapshot) bool { return len(sn.Texts(chat, 0)) == 1 })
	select {
	case <-answered:
		t.Fatal("answered before the delay")
	default:
	}
	f.Close() // ends the delay
	<-answered
}
