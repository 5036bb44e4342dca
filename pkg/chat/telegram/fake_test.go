package telegram

import (
	"context"
	"strconv"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

var chatID = strconv.FormatInt(faketelegram.DefaultChatID, 10)

// startFake starts a fake with one supergroup, a forum when forum is set.
func startFake(t *testing.T, forum bool) *faketelegram.Server {
	t.Helper()
	f, err := faketelegram.Start(faketelegram.Options{Chats: []faketelegram.Chat{{ID: faketelegram.DefaultChatID, Forum: forum}}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func fakeConfig(f *faketelegram.Server) *spec.TelegramConfig {
	return &spec.TelegramConfig{BotToken: spec.NewSecret(f.Token()), ChatID: chatID, APIURL: f.URL(), PostsPerMinute: spec.MaxPostsPerMinute}
}

// newPoster is a poster as a fresh process has it: it knows nothing it
// posted before.
func newPoster(t *testing.T, f *faketelegram.Server) *Poster {
	t.Helper()
	return newPosterIn(t, f, "")
}

// newPosterIn is newPoster of a daemon whose state directory is dir,
// where its transport saves the chat's top.
func newPosterIn(t *testing.T, f *faketelegram.Server, dir string) *Poster {
	t.Helper()
	p, err := NewPoster(fakeConfig(f), Options{Timeout: 2 * time.Second, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func post(t *testing.T, p *Poster, key, thread, text string) string {
	t.Helper()
	id, err := p.Post(ctxFor(t), relay.Part{Key: key, Thread: thread, Text: text})
	if err != nil {
		t.Fatalf("posting %s: %v", key, err)
	}
	return id
}

func id64(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func strconvI(id int64) string { return strconv.FormatInt(id, 10) }
