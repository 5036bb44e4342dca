package fakediscord_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// seen is one dispatch: its name (with a MESSAGE_CREATE's content) and
// sequence number.
type seen struct {
	name string
	seq  int64
}

// dispatches collects every dispatch in the order discordgo read them
// (SyncEvents: handlers run on the reading goroutine).
func dispatches(s *discordgo.Session) <-chan seen {
	s.SyncEvents = true
	ch := make(chan seen, 100)
	s.AddHandler(func(_ *discordgo.Session, e *discordgo.Event) {
		name := e.Type
		if e.Type == "MESSAGE_CREATE" {
			var m struct{ Content string }
			_ = json.Unmarshal(e.RawData, &m)
			name += ":" + m.Content
		}
		select {
		case ch <- seen{name, e.Sequence}:
		default:
		}
	})
	return ch
}

// openWatched opens a session of token that reads message content, its
// dispatches collected (dispatches), closed when the test ends.
func openWatched(t *testing.T, f *fakediscord.Server) <-chan seen {
	t.Helper()
	s := newSession(t, f, token)
	s.Identify.Intents = discordgo.IntentsGuildMessages | discordgo.IntentMessageContent
	ev := dispatches(s)
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	return ev
}

// A held RESUME, through discordgo: the reconnecting client's RESUME
// waits; a message sent meanwhile is not delivered live (the session is
// away) and comes, on release, as Discord replays missed events: before
// RESUMED, once, on the same session (no new IDENTIFY).
func TestHoldResumes(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, HeartbeatInterval: time.Second})
	ev := openWatched(t, f)
	receive(t, ev, "READY", func(e seen) bool { return e.name == "READY" })
	// A drop before discordgo's first heartbeat races it (see TestGatewayLifecycle).
	waitFor(t, f, "the first heartbeat", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Heartbeats > 0 })

	f.HoldResumes()
	f.DropConnections()
	waitFor(t, f, "discordgo's RESUME held", func(sn fakediscord.Snapshot) bool {
		st := sn.Tokens[token]
		return st.HeldResumes == 1 && st.Live == 0
	})
	if _, err := f.InjectMessage(channel, user, "while held"); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-ev:
		t.Fatalf("%s arrived while the RESUME was held", e.name)
	default:
	}
	f.ReleaseResumes()
	missed := receive(t, ev, "the missed message", func(seen) bool { return true })
	if missed.name != "MESSAGE_CREATE:while held" {
		t.Fatalf("first dispatch after the release: %s, want the missed message", missed.name)
	}
	if e := receive(t, ev, "RESUMED", func(seen) bool { return true }); e.name != "RESUMED" || e.seq != missed.seq+1 {
		t.Fatalf("after the replay: %+v, want RESUMED numbered next (%d)", e, missed.seq+1)
	}
	if st := f.Snapshot().Tokens[token]; st.Resumes != 1 || st.Identifies != 1 || st.HeldResumes != 0 || st.Live != 1 || st.MaxLive != 1 {
		t.Fatalf("stats %+v, want one IDENTIFY, one RESUME, nothing held", st)
	}
	if _, err := f.InjectMessage(channel, user, "live"); err != nil {
		t.Fatal(err)
	}
	if e := receive(t, ev, "the live message", func(seen) bool { return true }); e.name != "MESSAGE_CREATE:live" {
		t.Fatalf("after RESUMED: %s, want the live message only (no second replay)", e.name)
	}
}
