package telegram

import (
	"sync"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/relay"
)

// startPaced starts a fake enforcing the service's budget scaled to
// perMinute, and a poster paced to the same.
func startPaced(t *testing.T, perMinute int, chats ...faketelegram.Chat) (*faketelegram.Server, *Poster) {
	t.Helper()
	f, err := faketelegram.Start(faketelegram.Options{Chats: chats, Limit: faketelegram.ScaledLimit(perMinute), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	cfg := fakeConfig(f)
	cfg.PostsPerMinute = perMinute
	p, err := NewPoster(cfg, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

// A burst from three sessions at once keeps to the budget the fake
// enforces as the service does: no 429, and the posts arrive no faster
// than the budget allows (measured by the fake's own arrival times).
func TestBurstKeepsTheBudget(t *testing.T) {
	const perMinute, sessions, each = 1200, 3, 20
	f, p := startPaced(t, perMinute, faketelegram.Chat{ID: faketelegram.DefaultChatID})
	root := post(t, p, "root", "", "root")
	var wg sync.WaitGroup
	errs := make(chan error, sessions*each)
	for s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := p.Post(ctxFor(t), relay.Part{Key: "m", Thread: root, Text: string(rune('a'+s)) + strconvI(int64(i))}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a post of the burst: %v", err)
	}
	sn := f.Snapshot()
	if sn.RateLimited != 0 {
		t.Fatalf("the fake answered %d posts 429", sn.RateLimited)
	}
	var first, last time.Time
	n := 0
	for _, m := range sn.Messages {
		if m.Service != "" {
			continue
		}
		if n == 0 {
			first = m.Date
		}
		last, n = m.Date, n+1
	}
	if n != 1+sessions*each {
		t.Fatalf("%d posts at the fake, want %d", n, 1+sessions*each)
	}
	if took, floor := last.Sub(first), BudgetTime(n, perMinute); took < floor {
		t.Fatalf("%d posts arrived within %v; the budget allows no less than %v", n, took, floor)
	}
}

// A 429 holds back the chat it was for, for its retry_after, and no
// other chat.
func TestRateLimitHoldsThatChatOnly(t *testing.T) {
	const other = int64(-1002000000002)
	f, p := startPaced(t, 60000, faketelegram.Chat{ID: faketelegram.DefaultChatID}, faketelegram.Chat{ID: other})
	cfg := fakeConfig(f)
	cfg.ChatID = strconvI(other)
	q, err := NewPoster(cfg, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	f.RateLimitNext(1, 2*time.Second)
	if _, err := p.Post(ctxFor(t), relay.Part{Key: "held", Text: "held"}); relay.KindOf(err) != relay.RateLimited {
		t.Fatalf("Post = %v, want rate-limited", err)
	}
	free := id64(t, post(t, q, "free", "", "free"))
	held := id64(t, post(t, p, "held", "", "held"))
	sn := f.Snapshot()
	mf, _ := sn.Message(other, free)
	mh, _ := sn.Message(faketelegram.DefaultChatID, held)
	if mh.Date.Before(before.Add(2 * time.Second)) {
		t.Errorf("the chat was posted to %v after its 429, within its retry_after of 2 s", mh.Date.Sub(before))
	}
	if !mf.Date.Before(before.Add(2 * time.Second)) {
		t.Errorf("the other chat waited out the 429 too (%v)", mf.Date.Sub(before))
	}
}
