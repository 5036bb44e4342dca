package fakeslack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// A raw socket shows what socketmode hides: hello's fields, pings, single-use
// URLs and redelivery of an envelope that was never acked.
func TestSocketProtocol(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{AppTokens: []string{appTok}})
	api := newAPI(f, botTok, appTok)

	type message struct {
		Type           string `json:"type"`
		NumConnections int    `json:"num_connections"`
		ConnectionInfo struct {
			AppID string `json:"app_id"`
		} `json:"connection_info"`
		EnvelopeID   string          `json:"envelope_id"`
		RetryAttempt int             `json:"retry_attempt"`
		RetryReason  string          `json:"retry_reason"`
		Payload      json.RawMessage `json:"payload"`
	}
	dial := func() (*websocket.Conn, chan struct{}) {
		t.Helper()
		_, u, err := api.StartSocketModeContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ws, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {"https://api.slack.com"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, resp, err := websocket.DefaultDialer.Dial(u, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("second dial of one URL: %v", err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(waitLimit))
		pinged := make(chan struct{}, 100)
		ws.SetPingHandler(func(string) error {
			select {
			case pinged <- struct{}{}:
			default:
			}
			return nil
		})
		return ws, pinged
	}
	read := func(ws *websocket.Conn) message {
		t.Helper()
		var m message
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	// Queued before the app ever connects: AppTokens lists it.
	in, err := f.InjectMessage(channel, user, "early", "")
	if err != nil {
		t.Fatal(err)
	}
	ws, pinged := dial()
	if m := read(ws); m.Type != "hello" || m.NumConnections != 1 || m.ConnectionInfo.AppID != fakeslack.DefaultAppID {
		t.Fatalf("hello = %+v", m)
	}
	first := read(ws)
	if first.Type != "events_api" || first.RetryAttempt != 0 || first.EnvelopeID == "" {
		t.Fatalf("first delivery %+v", first)
	}
	// Pings are handled inside reads; wait for one more frame to arrive after it.
	go func() { _, _, _ = ws.ReadMessage() }()
	select {
	case <-pinged:
	case <-time.After(waitLimit):
		t.Fatal("no ping")
	}
	_ = ws.Close() // without acking

	ws, _ = dial()
	defer ws.Close()
	read(ws) // hello
	again := read(ws)
	if again.EnvelopeID != first.EnvelopeID || again.RetryAttempt != 1 || again.RetryReason != "timeout" {
		t.Fatalf("redelivery %+v, first %+v", again, first)
	}
	if err := ws.WriteJSON(map[string]string{"envelope_id": again.EnvelopeID}); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, f, "ack", acked(in.TS))
	if e := snap.Envelopes[0]; e.Deliveries != 2 || e.AppToken != appTok || e.Channel != channel {
		t.Fatalf("envelope %+v", e)
	}
	if st := snap.Apps[appTok]; st.Connections != 2 || st.MaxLive != 1 {
		t.Fatalf("stats %+v", st)
	}
}
