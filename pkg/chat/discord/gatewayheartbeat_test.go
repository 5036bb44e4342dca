package discord

import (
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// op 1 from the gateway asks for a heartbeat at once (Discord's gateway
// documentation, "Sending Heartbeats"): the client answers without
// waiting for its interval, with the last sequence number it read. The
// interval is an hour, so the answer cannot be a periodic beat (the
// first of which comes at a random point of the interval: a chance of
// about one in a thousand that it falls in this test's window).
func TestGatewayHeartbeatRequest(t *testing.T) {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{gwToken}, Channels: []string{gwChannel}, HeartbeatInterval: time.Hour, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	ev := &events{}
	g, err := openGateway(context.Background(), gatewayDial{dialer: websocket.DefaultDialer, url: f.GatewayURL(), token: gwToken,
		intents: 1<<0 | 1<<9 | 1<<15, handshake: 5 * time.Second, dispatch: ev.dispatch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.close(closeResumable) })
	if _, err := f.InjectMessage(gwChannel, gwUser, "advance the sequence"); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, "MESSAGE_CREATE:advance the sequence")
	seq := g.seq.Load()
	before := f.Snapshot().Tokens[gwToken].Heartbeats
	if n := f.RequestHeartbeat(); n != 1 {
		t.Fatalf("asked %d connections, want 1", n)
	}
	st := waitFakeWithin(t, f, 2*time.Second, "the answer to op 1", func(s fakediscord.TokenStats) bool { return s.Heartbeats == before+1 })
	if st.HeartbeatSeq != seq || seq < 3 {
		t.Fatalf("the answer carried seq %d, want the last read, %d (READY, GUILD_CREATE, the message)", st.HeartbeatSeq, seq)
	}
	select {
	case <-g.ended():
		t.Fatalf("the connection ended: %v", g.err())
	default:
	}
}

func waitFakeWithin(t *testing.T, f *fakediscord.Server, d time.Duration, what string, cond func(fakediscord.TokenStats) bool) fakediscord.TokenStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	sn, err := f.WaitFor(ctx, func(sn fakediscord.Snapshot) bool { return cond(sn.Tokens[gwToken]) })
	if err != nil {
		t.Fatalf("waiting for %s: %v; stats %+v", what, err, sn.Tokens[gwToken])
	}
	return sn.Tokens[gwToken]
}
