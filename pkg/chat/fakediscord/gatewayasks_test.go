package fakediscord_test

import (
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// op 7 and op 9 through discordgo: RECONNECT is answered with a close
// and a RESUME of the same session (no new IDENTIFY), and a session
// invalidated for good with an IDENTIFY on the same connection.
func TestGatewayAsks(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, HeartbeatInterval: time.Second})
	s := newSession(t, f, token)
	ready := make(chan *discordgo.Ready, 4)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	first := receive(t, ready, "READY", func(*discordgo.Ready) bool { return true })
	t.Cleanup(func() { closeSession(t, s) })

	if n := f.AskReconnect(); n != 1 {
		t.Fatalf("asked %d connections to reconnect, want 1", n)
	}
	snap := waitFor(t, f, "the RESUME that answers op 7", func(sn fakediscord.Snapshot) bool {
		st := sn.Tokens[token]
		return st.Resumes == 1 && st.Live == 1
	})
	if st := snap.Tokens[token]; st.Identifies != 1 || st.MaxLive != 1 {
		t.Fatalf("after op 7: %+v, want one IDENTIFY and never two live", st)
	}

	if n := f.InvalidateSessions(false); n != 1 {
		t.Fatalf("invalidated %d sessions, want 1", n)
	}
	second := receive(t, ready, "a new READY after op 9", func(*discordgo.Ready) bool { return true })
	if second.SessionID == first.SessionID {
		t.Fatalf("op 9 (not resumable) kept session %s", first.SessionID)
	}
	snap = waitFor(t, f, "the IDENTIFY that answers op 9", func(sn fakediscord.Snapshot) bool {
		st := sn.Tokens[token]
		return st.Identifies == 2 && st.Live == 1
	})
	if st := snap.Tokens[token]; st.MaxLive != 1 {
		t.Fatalf("after op 9: %+v, want never two live", st)
	}
}

// A deaf connection, through discordgo: heartbeats go on, nothing is
// delivered, and a RESUME on a new connection replays what it held back.
func TestDeafen(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, HeartbeatInterval: 100 * time.Millisecond})
	s := newSession(t, f, token)
	s.Identify.Intents = discordgo.IntentsGuildMessages | discordgo.IntentMessageContent
	created := messages(s)
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	if _, err := f.InjectMessage(channel, user, "heard"); err != nil {
		t.Fatal(err)
	}
	receive(t, created, "the live message", func(m *discordgo.MessageCreate) bool { return m.Content == "heard" })
	if n := f.Deafen(); n != 1 {
		t.Fatalf("deafened %d connections, want 1", n)
	}
	if _, err := f.InjectMessage(channel, user, "not heard"); err != nil {
		t.Fatal(err)
	}
	beats := f.Snapshot().Tokens[token].Heartbeats
	waitFor(t, f, "heartbeats on the deaf connection", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Heartbeats >= beats+3 })
	select {
	case m := <-created:
		t.Fatalf("a deaf connection delivered %q", m.Content)
	default:
	}
	f.DropConnections()
	receive(t, created, "the held-back message, replayed by the RESUME", func(m *discordgo.MessageCreate) bool { return m.Content == "not heard" })
	if st := f.Snapshot().Tokens[token]; st.Resumes != 1 || st.Identifies != 1 {
		t.Fatalf("stats %+v, want the one IDENTIFY and a RESUME", st)
	}
}

// op 1 from the gateway, through discordgo: the client answers at once,
// not at its next interval (a minute away here), with the sequence
// number of the last dispatch it read.
func TestRequestHeartbeat(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, HeartbeatInterval: time.Minute})
	ev := openWatched(t, f)
	// discordgo beats once as it starts, then every interval.
	first := waitFor(t, f, "the first heartbeat", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Heartbeats == 1 })
	if _, err := f.InjectMessage(channel, user, "advance the sequence"); err != nil {
		t.Fatal(err)
	}
	m := receive(t, ev, "the message", func(e seen) bool { return e.name == "MESSAGE_CREATE:advance the sequence" })
	if m.seq <= first.Tokens[token].HeartbeatSeq {
		t.Fatalf("the message is numbered %d, not after the first heartbeat's %d", m.seq, first.Tokens[token].HeartbeatSeq)
	}
	if n := f.RequestHeartbeat(); n != 1 {
		t.Fatalf("asked %d connections, want 1", n)
	}
	sn := waitFor(t, f, "the requested heartbeat", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Heartbeats == 2 })
	if got := sn.Tokens[token].HeartbeatSeq; got != m.seq {
		t.Fatalf("the answer carried seq %d, want the last dispatch's %d", got, m.seq)
	}
}
