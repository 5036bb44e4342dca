package telegram

import (
	"testing"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// Agent text reaches the group plain, without link previews, and pings
// nobody by the service's own detection of mentions in plain text.
func TestPostIsPlainAndPingsNobody(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	text := "ask @alice or @bob_2 about https://example.com, cc me@example.com **not bold**"
	id := post(t, p, "m/0", "", text)
	m, ok := f.Snapshot().Message(faketelegram.DefaultChatID, id64(t, id))
	if !ok {
		t.Fatal("the post is not at the fake")
	}
	if pings := f.Snapshot().Pings(); len(pings) != 0 {
		t.Errorf("the post pings: %+v", pings[0].Entities)
	}
	if m.ParseMode != "" {
		t.Errorf("parse mode %q sent", m.ParseMode)
	}
	if m.LinkPreview == "" {
		t.Error("link previews were not turned off")
	}
	if m.Text != safeText(text) {
		t.Errorf("posted %q", m.Text)
	}
}

// A 429 holds the chat for its retry_after and says so.
func TestRateLimitedPost(t *testing.T) {
	f := startFake(t, false)
	p := newPoster(t, f)
	f.RateLimitNext(1, 1)
	_, err := p.Post(ctxFor(t), relay.Part{Key: "m/0", Text: "x"})
	if relay.KindOf(err) != relay.RateLimited {
		t.Fatalf("Post = %v, want rate-limited", err)
	}
}
