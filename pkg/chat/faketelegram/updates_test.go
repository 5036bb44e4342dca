package faketelegram_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// The library's own long poll receives an injected reply in a topic.
func TestLongPollThroughTheLibrary(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	got := make(chan *models.Update, 10)
	b := newBot(t, f, bot.WithHTTPClient(3*time.Second, &http.Client{Timeout: 10 * time.Second}),
		bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) { got <- u }))
	topic, err := b.CreateForumTopic(ctx(t), &bot.CreateForumTopicParams{ChatID: chat, Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Start(c); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	waitFor(t, f, "a waiting poll", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 1 })
	in, err := f.InjectMessage(faketelegram.Inbound{From: alice, Thread: int64(topic.MessageThreadID), Text: "go on"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-got:
		m := u.Message
		if u.ID != faketelegram.DefaultFirstUpdateID || m == nil || m.ID != int(in.ID) || m.Text != "go on" ||
			m.MessageThreadID != topic.MessageThreadID || m.From.ID != alice.ID || m.ReplyToMessage == nil || m.ReplyToMessage.ForumTopicCreated == nil {
			t.Fatalf("update %+v, message %+v", u, m)
		}
	case <-time.After(waitLimit):
		t.Fatal("no update")
	}
	// The library's next poll confirms it.
	waitFor(t, f, "confirmed", func(sn faketelegram.Snapshot) bool { return len(sn.Updates) == 1 && sn.Updates[0].Confirmed })
	// A cut poll, polled again at once, is never counted twice: one
	// client, one consumer.
	f.DropConnections()
	waitFor(t, f, "polling again", func(sn faketelegram.Snapshot) bool {
		return sn.Polls.Live == 1 && len(f.Requests()) > 4
	})
	if sn := f.Snapshot(); sn.Polls.MaxLive != 1 || sn.Conflicts != 0 {
		t.Fatalf("one client: polls %+v, conflicts %d", sn.Polls, sn.Conflicts)
	}
}

// updates is getUpdates' result as it comes over the wire.
func updates(t *testing.T, r reply) []int64 {
	t.Helper()
	if !r.OK {
		t.Fatalf("getUpdates: %+v", r)
	}
	var us []struct {
		ID int64 `json:"update_id"`
	}
	if err := json.Unmarshal(r.Result, &us); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, u := range us {
		ids = append(ids, u.ID)
	}
	return ids
}

func poll(t *testing.T, f *faketelegram.Server, offset int64, more ...string) reply {
	t.Helper()
	form := url.Values{"offset": {strconv.FormatInt(offset, 10)}}
	for i := 0; i+1 < len(more); i += 2 {
		form.Set(more[i], more[i+1])
	}
	_, r := call(t, f, "getUpdates", form)
	return r
}

// Updates stay until an offset confirms them; a negative offset keeps the
// last ones only.
func TestUpdatesAreKeptUntilConfirmed(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{FirstUpdateID: 10})
	for _, text := range []string{"a", "b", "c", "d"} {
		if _, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if got := updates(t, poll(t, f, 0)); len(got) != 4 || got[0] != 10 {
			t.Fatalf("unconfirmed: %v", got)
		}
	}
	if got := updates(t, poll(t, f, 11, "limit", "1")); len(got) != 1 || got[0] != 11 {
		t.Fatalf("offset 11, limit 1: %v", got)
	}
	if got := updates(t, poll(t, f, -1)); len(got) != 1 || got[0] != 13 {
		t.Fatalf("offset -1: %v", got)
	}
	if got := updates(t, poll(t, f, 0)); len(got) != 1 || got[0] != 13 {
		t.Fatalf("after -1 only the last is left: %v", got)
	}
	sn := f.Snapshot()
	if u := sn.Updates; !u[0].Confirmed || u[0].Deliveries != 2 || u[3].Confirmed || u[3].Deliveries != 4 {
		t.Fatalf("updates %+v", u)
	}
	// A poll with nothing to take waits, and the next update ends its wait.
	waiting := make(chan reply, 1)
	go func() { waiting <- poll(t, f, 14, "timeout", "30") }()
	waitFor(t, f, "a waiting poll", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 1 })
	if _, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "e"}); err != nil {
		t.Fatal(err)
	}
	if got := updates(t, <-waiting); len(got) != 1 || got[0] != 14 {
		t.Fatalf("the waiting poll: %v", got)
	}
	if got := updates(t, poll(t, f, 15, "timeout", "1")); len(got) != 0 {
		t.Fatalf("nothing within its timeout: %v", got)
	}
}

// A second getUpdates while one waits ends the first with the service's
// 409; a webhook makes getUpdates 409 too.
func TestSecondConsumerAndWebhookConflict(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	first := make(chan reply, 1)
	go func() { first <- poll(t, f, 0, "timeout", "30") }()
	waitFor(t, f, "the first poll", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 1 })
	second := make(chan reply, 1)
	go func() { second <- poll(t, f, 0, "timeout", "30") }()
	r := <-first
	if r.ErrorCode != http.StatusConflict || r.Description != "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" {
		t.Fatalf("first poll: %+v", r)
	}
	f.SetWebhook("https://example.invalid/hook")
	if r := <-second; r.ErrorCode != http.StatusConflict || r.Description != "Conflict: terminated by setWebhook request" {
		t.Fatalf("second poll: %+v", r)
	}
	if r := poll(t, f, 0); r.ErrorCode != http.StatusConflict || r.Description != "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" {
		t.Fatalf("with a webhook: %+v", r)
	}
	sn := f.Snapshot()
	if sn.Polls.MaxLive != 2 || sn.Conflicts != 3 || sn.DeleteWebhook != 0 {
		t.Fatalf("oracle: polls %+v, conflicts %d", sn.Polls, sn.Conflicts)
	}
}

// Two library clients on one token: each sees the 409 through its errors
// handler, as bot.ErrorConflict.
func TestTwoLibraryConsumersSeeConflict(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	conflict := make(chan error, 1)
	c, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for range 2 {
		b := newBot(t, f, bot.WithHTTPClient(5*time.Second, &http.Client{Timeout: 10 * time.Second}),
			bot.WithDefaultHandler(func(context.Context, *bot.Bot, *models.Update) {}),
			bot.WithErrorsHandler(func(err error) {
				if errors.Is(err, bot.ErrorConflict) {
					select {
					case conflict <- err:
					default:
					}
				}
			}))
		wg.Add(1)
		go func() { defer wg.Done(); b.Start(c) }()
	}
	select {
	case err := <-conflict:
		t.Logf("seen: %v", err)
	case <-time.After(waitLimit):
		t.Fatal("no client saw the 409")
	}
	if sn := f.Snapshot(); sn.Polls.MaxLive < 2 || sn.Conflicts == 0 {
		t.Fatalf("oracle: polls %+v, conflicts %d", sn.Polls, sn.Conflicts)
	}
}

// message_reaction is not among the default updates; allowed_updates
// that lists it lets later ones through.
func TestAllowedUpdates(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	in, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.InjectReaction(chat, in.ID, alice, "👍"); err != nil {
		t.Fatal(err)
	}
	if got := updates(t, poll(t, f, 0, "allowed_updates", `["message","message_reaction"]`)); len(got) != 1 {
		t.Fatalf("the reaction made before is not queued: %v", got)
	}
	if err := f.InjectReaction(chat, in.ID, alice, "👍"); err != nil {
		t.Fatal(err)
	}
	got := updates(t, poll(t, f, faketelegram.DefaultFirstUpdateID+1))
	if sn := f.Snapshot(); len(got) != 1 || sn.Updates[1].Kind != faketelegram.KindReaction {
		t.Fatalf("reaction update: %v, %+v", got, sn.Updates)
	}
}

// A rival consumer keeps a client's polls ending in 409.
func TestRival(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	stop := f.StartRival()
	defer stop()
	waitFor(t, f, "the rival waiting", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 1 })
	for range 2 {
		if r := poll(t, f, 0, "timeout", "30"); r.ErrorCode != http.StatusConflict {
			t.Fatalf("with a rival: %+v", r)
		}
	}
	stop()
	waitFor(t, f, "the rival gone", func(sn faketelegram.Snapshot) bool { return sn.Polls.Live == 0 })
	if r := poll(t, f, 0, "timeout", "1"); !r.OK {
		t.Fatalf("without: %+v", r)
	}
}

// A lost getUpdates answer loses nothing: its updates come again; and
// another bot's message never becomes an update.
func TestLostUpdatesAnswer(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	if _, err := f.InjectMessage(faketelegram.Inbound{From: faketelegram.User{ID: 5, IsBot: true, FirstName: "Other"}, Text: "a bot"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.InjectMessage(faketelegram.Inbound{From: alice, Text: "a person"}); err != nil {
		t.Fatal(err)
	}
	f.FailAfter("getUpdates", 1, faketelegram.FailCut)
	if r := pollRaw(t, f); r.OK {
		t.Fatalf("a lost answer arrived: %+v", r)
	}
	f.FailBefore("getUpdates", 1, faketelegram.Fail502)
	if r := pollRaw(t, f); r.OK {
		t.Fatalf("a failed poll answered: %+v", r)
	}
	if got := updates(t, poll(t, f, 0)); len(got) != 1 {
		t.Fatalf("again: %v", got)
	}
	if u := f.Snapshot().Updates; len(u) != 1 || u[0].Deliveries != 2 {
		t.Fatalf("updates %+v", u)
	}
}
