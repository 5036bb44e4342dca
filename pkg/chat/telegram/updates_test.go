package telegram

import (
	"errors"
	"strings"
	"testing"
	"time"

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
	f.Add([]byte(`{"ok":true,"result":[{"update_id":6,"callback_query":{"id":"4382","from":{"id":42,"first_name":"A"},"chat_instance":"1","data":"01JASK:0",` +
		`"message":{"message_id":9,"date":1,"chat":{"id":-1001},"message_thread_id":3,"reply_markup":{"inline_keyboard":[[{"text":"Approve","callback_data":"01JASK:0"}]]}}}},` +
		`{"update_id":7,"callback_query":{"id":"4383","from":{"id":42},"message":{"message_id":9,"date":0,"chat":{"id":-1001}}}},{"update_id":8,"callback_query":{"id":"x","message":null}}]}`))
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
			if u.CallbackQuery != nil {
				c, ours := clickOf(u.CallbackQuery, testChat, time.Time{})
				if ours && (c.ID == "" || c.User == "0" || c.Message == "0") {
					t.Fatalf("a click without an id, a clicker or a message is taken as ours: %+v", c)
				}
			}
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
