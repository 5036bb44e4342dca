package fakediscord_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// The cases discordgo never produces on its own, spoken raw.
func TestGatewayProtocolEdges(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}})
	ws, _, err := websocket.DefaultDialer.Dial(f.GatewayURL()+"/?v=9&encoding=json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(waitLimit))

	type payload struct {
		Op int             `json:"op"`
		S  int64           `json:"s"`
		T  string          `json:"t"`
		D  json.RawMessage `json:"d"`
	}
	read := func() payload {
		t.Helper()
		var p payload
		if err := ws.ReadJSON(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	send := func(op int, d any) {
		t.Helper()
		if err := ws.WriteJSON(map[string]any{"op": op, "d": d}); err != nil {
			t.Fatal(err)
		}
	}

	if p := read(); p.Op != 10 || string(p.D) != `{"heartbeat_interval":41250}` {
		t.Fatalf("HELLO = %+v", p)
	}
	send(6, map[string]any{"token": "Bot " + token, "session_id": "nope", "seq": 3})
	if p := read(); p.Op != 9 || string(p.D) != "false" {
		t.Fatalf("RESUME of unknown session answered %+v", p)
	}
	send(2, map[string]any{"token": token, "intents": 1, "properties": map[string]string{}}) // GUILDS: GUILD_CREATE follows
	if p := read(); p.Op != 0 || p.T != "READY" || p.S != 1 {
		t.Fatalf("IDENTIFY answered %+v", p)
	}
	if p := read(); p.T != "GUILD_CREATE" || p.S != 2 {
		t.Fatalf("after READY: %+v", p)
	}
	send(1, 2)
	if p := read(); p.Op != 11 {
		t.Fatalf("heartbeat answered %+v", p)
	}
	send(2, map[string]any{"token": token})
	_, _, err = ws.ReadMessage()
	if ce, ok := errors.AsType[*websocket.CloseError](err); !ok || ce.Code != 4005 {
		t.Fatalf("second IDENTIFY: %v, want close 4005", err)
	}
	st := waitFor(t, f, "session closed", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 0 }).Tokens[token]
	if st.Identifies != 2 || st.MaxLive != 1 || st.Heartbeats != 1 {
		t.Fatalf("stats %+v", st)
	}
}
