package telegram

import (
	"context"
	"sync"
	"time"
)

// gate holds back the requests that post to the chat while a 429 told it
// to wait. Telegram limits posting per chat, and a daemon posts to one
// chat, so one gate is "that chat only": another daemon's chat is not
// held back, and methods that neither post nor edit (getUpdates, getMe,
// getChat, reactions) do not wait on it.
type gate struct {
	mu    sync.Mutex
	until time.Time
}

// wait returns once the chat may be posted to, or ctx's error.
func (g *gate) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		d := time.Until(g.until)
		g.mu.Unlock()
		if d <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// hold makes the chat wait d from now (retry_after), never shortening a
// longer wait.
func (g *gate) hold(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if until := time.Now().Add(d); until.After(g.until) {
		g.until = until
	}
}
