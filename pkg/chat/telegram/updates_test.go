package telegram

import (
	"errors"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/daemonproto"
)

func TestDecodeUpdates(t *testing.T) {
	ups, err := decodeUpdates([]byte(`{"ok":true,"result":[{"update_id":5,"message":{"message_id":1,"date":1,"chat":{"id":-1001,"type":"supergroup"},"text":"hi"}},{"update_id":6}]}`))
	if err != nil || len(ups) != 2 || ups[0].Message.Text != "hi" {
		t.Fatalf("decodeUpdates = %+v, %v", ups, err)
	}
	_, err = decodeUpdates([]byte(`{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"}`))
	var ae *apiError
	if !errors.As(err, &ae) || ae.Code != 409 {
		t.Fatalf("a refusal decodes as %v", err)
	}
	if _, err := decodeUpdates([]byte(`{"ok":true,"result":[{"update_id":6},{"update_id":5}]}`)); err == nil {
		t.Fatal("updates out of order decode")
	}
	if _, err := decodeUpdates([]byte(`<html>502</html>`)); err == nil {
		t.Fatal("an HTML page decodes")
	}
}

func FuzzDecodeUpdates(f *testing.F) {
	f.Add([]byte(`{"ok":true,"result":[{"update_id":5,"message":{"message_id":1,"chat":{"id":-1001},"text":"hi","message_thread_id":3}}]}`))
	f.Add([]byte(`{"ok":false,"error_code":429,"parameters":{"retry_after":3}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ups, err := decodeUpdates(body)
		if err != nil {
			return
		}
		for i := 1; i < len(ups); i++ {
			if ups[i].ID <= ups[i-1].ID {
				t.Fatalf("decoded updates out of order: %d after %d", ups[i].ID, ups[i-1].ID)
			}
		}
		for _, u := range ups {
			eventOf(u, testChat, 7) // never panics
		}
	})
}

func TestPollFailure(t *testing.T) {
	reasons := map[string]string{"another program polls": daemonproto.ReasonTokenInUse, "a webhook is set for this bot, so it cannot poll; remove it with deleteWebhook": daemonproto.ReasonWebhookSet}
	for _, tc := range []struct {
		err      error
		terminal bool
		health   string
	}{
		{&apiError{Code: 401, Description: "Unauthorized"}, true, ""},
		{&apiError{Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}, false, "another program polls"},
		{&apiError{Code: 409, Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}, false, "a webhook is set for this bot, so it cannot poll; remove it with deleteWebhook"},
		{&apiError{Code: 502, Description: "Bad Gateway"}, false, "telegram getUpdates: 502"},
		{errors.New("read: connection reset"), false, "telegram getUpdates: read"},
	} {
		h, terminal, _ := pollFailure(tc.err)
		if (terminal != nil) != tc.terminal {
			t.Errorf("pollFailure(%v) terminal = %v", tc.err, terminal)
		}
		if terminal != nil && terminal.Reason != daemonproto.ReasonInvalidCredentials {
			t.Errorf("terminal reason %s", terminal.Reason)
		}
		if h.Healthy || !strings.HasPrefix(h.Err, tc.health) {
			t.Errorf("pollFailure(%v) health = %+v, want %q...", tc.err, h, tc.health)
		}
		if h.Reason != reasons[tc.health] {
			t.Errorf("pollFailure(%v) reason = %q, want %q", tc.err, h.Reason, reasons[tc.health])
		}
	}
}
