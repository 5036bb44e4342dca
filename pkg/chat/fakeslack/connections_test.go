package fakeslack_test

import (
	"testing"

	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// Each hello carries the app's open Socket Mode connections, this one
// included, as slack-go's socketmode client decodes it (Request's
// NumConnections): what the transport's TokenInUse reads.
func TestHelloCountsTheAppsConnections(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}, AppTokens: []string{appTok}, Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	count := func(c *client) int {
		e := c.next(t, socketmode.EventTypeHello, nil)
		if e.Request == nil {
			t.Fatal("hello without its request")
		}
		return e.Request.NumConnections
	}
	a := run(t, api)
	if n := count(a); n != 1 {
		t.Fatalf("the first connection's hello counts %d", n)
	}
	b := run(t, api)
	if n := count(b); n != 2 {
		t.Fatalf("the second connection's hello counts %d, want 2", n)
	}
	_ = a.stop(t) // context.Canceled: stopped as asked
	waitFor(t, f, "one open socket", func(sn fakeslack.Snapshot) bool { return sn.Apps[appTok].Live == 1 })
	c := run(t, api)
	if n := count(c); n != 2 {
		t.Fatalf("a third connection, the first gone, counts %d, want 2", n)
	}
}
