package fakediscord_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

const (
	token   = "discord-token-123"
	channel = "200000000000000001"
	user    = "300000000000000001"
)

func TestGatewayLifecycle(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}, HeartbeatInterval: time.Second})
	s := newSession(t, f, token)
	s.Identify.Intents |= discordgo.IntentMessageContent // to read what humans write
	ready := make(chan *discordgo.Ready, 4)
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) { ready <- r })
	created := messages(s)

	if err := open(t, s); err != nil {
		t.Fatalf("Open: %v", err)
	}
	r := receive(t, ready, "READY", func(*discordgo.Ready) bool { return true })
	if r.SessionID == "" || r.User == nil || r.User.ID != fakediscord.BotUserID(token) {
		t.Fatalf("READY = %+v", r)
	}

	t.Run("heartbeats are acknowledged", func(t *testing.T) {
		s.RLock()
		first := s.LastHeartbeatAck
		s.RUnlock()
		waitFor(t, f, "two heartbeats", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Heartbeats >= 2 })
		eventually(t, "LastHeartbeatAck to advance", func() bool {
			s.RLock()
			defer s.RUnlock()
			return s.LastHeartbeatAck.After(first)
		})
	})

	var posted *discordgo.Message
	t.Run("messages go both ways", func(t *testing.T) {
		var err error
		if posted, err = s.ChannelMessageSend(channel, "hello"); err != nil {
			t.Fatal(err)
		}
		snap := f.Snapshot()
		if n := len(snap.Messages); n != 1 || snap.Messages[0].Content != "hello" || !snap.Messages[0].Bot ||
			snap.Messages[0].AuthorID != fakediscord.BotUserID(token) || snap.Messages[0].ID != posted.ID {
			t.Fatalf("fake holds %+v, posted %+v", snap.Messages, posted)
		}
		receive(t, created, "own message echoed", func(m *discordgo.MessageCreate) bool { return m.ID == posted.ID })
		if _, err := f.InjectMessage(channel, user, "hi bot"); err != nil {
			t.Fatal(err)
		}
		in := receive(t, created, "injected MESSAGE_CREATE", func(m *discordgo.MessageCreate) bool { return m.Content == "hi bot" })
		if in.Author.ID != user || in.ChannelID != channel || in.GuildID != f.GuildID() || in.Author.Bot {
			t.Fatalf("injected message arrived as %+v", in.Message)
		}

		hist, err := s.ChannelMessages(channel, 2, "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 2 || hist[0].Content != "hi bot" || hist[1].Content != "hello" {
			t.Fatalf("history not newest first: %v", contents(hist))
		}
		if hist, err = s.ChannelMessages(channel, 10, hist[0].ID, "", ""); err != nil || len(hist) != 1 || hist[0].ID != posted.ID {
			t.Fatalf("history before newest = %v, %v", contents(hist), err)
		}
		me, err := s.User("@me")
		if err != nil || me.ID != fakediscord.BotUserID(token) || !me.Bot {
			t.Fatalf("users/@me = %+v, %v", me, err)
		}
	})

	t.Run("threads", func(t *testing.T) {
		th, err := s.MessageThreadStart(channel, posted.ID, "session-1", 1440)
		if err != nil {
			t.Fatal(err)
		}
		if th.ID != posted.ID || th.ParentID != channel || th.Type != discordgo.ChannelTypeGuildPublicThread {
			t.Fatalf("thread from message = %+v", th)
		}
		if _, err := s.MessageThreadStart(channel, posted.ID, "again", 1440); restCode(err) != 160004 {
			t.Fatalf("second thread on one message: %v", err)
		}
		in, err := s.ChannelMessageSend(th.ID, "in thread")
		if err != nil {
			t.Fatal(err)
		}
		snap := f.Snapshot()
		last := snap.Messages[len(snap.Messages)-1]
		if last.ID != in.ID || last.ChannelID != th.ID || last.ParentID != channel {
			t.Fatalf("thread message stored as %+v", last)
		}
		pub, err := s.ThreadStart(channel, "session-2", discordgo.ChannelTypeGuildPublicThread, 60)
		if err != nil || pub.Type != discordgo.ChannelTypeGuildPublicThread {
			t.Fatalf("ThreadStart public = %+v, %v", pub, err)
		}
		// discordgo omits a zero type and API v9 then makes a private thread.
		priv, err := s.ThreadStart(channel, "session-3", 0, 60)
		if err != nil || priv.Type != discordgo.ChannelTypeGuildPrivateThread {
			t.Fatalf("ThreadStart without type = %+v, %v", priv, err)
		}
		if n := len(f.Snapshot().Threads); n != 3 {
			t.Fatalf("fake holds %d threads, want 3", n)
		}
		if _, err := s.ChannelMessageSend("999", "nowhere"); restCode(err) != 10003 {
			t.Fatalf("post to unknown channel: %v", err)
		}
	})

	var beatsAtDrop int
	t.Run("dropped connection is resumed with missed events", func(t *testing.T) {
		if n := f.DropConnections(); n != 1 {
			t.Fatalf("dropped %d connections, want 1", n)
		}
		beatsAtDrop = f.Snapshot().Tokens[token].Heartbeats
		if live := f.Snapshot().Tokens[token].Live; live != 0 {
			t.Fatalf("live = %d right after the drop", live)
		}
		if _, err := f.InjectMessage(channel, user, "while away"); err != nil {
			t.Fatal(err)
		}
		snap := waitFor(t, f, "RESUME", func(sn fakediscord.Snapshot) bool {
			st := sn.Tokens[token]
			return st.Resumes == 1 && st.Live == 1
		})
		receive(t, created, "replayed MESSAGE_CREATE", func(m *discordgo.MessageCreate) bool { return m.Content == "while away" })
		if st := snap.Tokens[token]; st.Identifies != 1 || st.MaxLive != 1 {
			t.Fatalf("after resume: %+v", st)
		}
	})

	t.Run("a replay-all RESUME sends events the client already had", func(t *testing.T) {
		// discordgo's Open returns, and its first heartbeat goes out, only
		// after the replay above was handled: a drop before that beat
		// races it, and discordgo's heartbeat then reconnects a second
		// time with a 1000 close that ends the session.
		waitFor(t, f, "the resumed connection's first heartbeat", func(sn fakediscord.Snapshot) bool {
			return sn.Tokens[token].Heartbeats > beatsAtDrop
		})
		f.ReplayAllOnNextResume()
		if n := f.DropConnections(); n != 1 {
			t.Fatalf("dropped %d connections, want 1", n)
		}
		waitFor(t, f, "second RESUME", func(sn fakediscord.Snapshot) bool {
			st := sn.Tokens[token]
			return st.Resumes == 2 && st.Live == 1
		})
		receive(t, created, "an old MESSAGE_CREATE again", func(m *discordgo.MessageCreate) bool { return m.Content == "hi bot" })
		if _, err := f.InjectMessage(channel, user, "after the replay"); err != nil {
			t.Fatal(err)
		}
		receive(t, created, "a new MESSAGE_CREATE", func(m *discordgo.MessageCreate) bool { return m.Content == "after the replay" })
	})

	t.Run("unacknowledged heartbeats make the client start over", func(t *testing.T) {
		f.SetHeartbeatAcks(false)
		waitFor(t, f, "the client to give up", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 0 })
		f.SetHeartbeatAcks(true)
		// It closed with 1000, which ends the session: RESUME fails, IDENTIFY follows.
		snap := waitFor(t, f, "a new session", func(sn fakediscord.Snapshot) bool {
			st := sn.Tokens[token]
			return st.Identifies == 2 && st.Live == 1
		})
		receive(t, ready, "second READY", func(*discordgo.Ready) bool { return true })
		if st := snap.Tokens[token]; st.MaxLive != 1 {
			t.Fatalf("max live = %d, want 1", st.MaxLive)
		}
	})

	closeSession(t, s)
	waitFor(t, f, "no live session", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 0 })
}

func TestRejectedToken(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, HeartbeatInterval: time.Second})

	t.Run("unknown token is closed with 4004", func(t *testing.T) {
		s := newSession(t, f, "wrong-token")
		err := open(t, s)
		if ce, ok := errors.AsType[*websocket.CloseError](err); !ok || ce.Code != 4004 {
			t.Fatalf("Open = %v, want close 4004", err)
		}
		if st := f.Snapshot().Tokens["wrong-token"]; st.Rejections != 1 || st.Live != 0 || st.MaxLive != 0 {
			t.Fatalf("stats %+v", st)
		}
		if _, err := s.ChannelMessageSend(channel, "x"); restStatus(err) != 401 {
			t.Fatalf("REST with unknown token: %v", err)
		}
	})

	t.Run("revoked token loses its live session", func(t *testing.T) {
		s := newSession(t, f, token)
		s.ShouldReconnectOnError = false // discordgo would retry 4004 forever
		gone := make(chan struct{}, 4)
		s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) { gone <- struct{}{} })
		if err := open(t, s); err != nil {
			t.Fatal(err)
		}
		waitFor(t, f, "live session", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 1 })

		f.SetTokenRejected(token, true)
		waitFor(t, f, "4004 close", func(sn fakediscord.Snapshot) bool {
			st := sn.Tokens[token]
			return st.Live == 0 && st.Rejections == 1
		})
		receive(t, gone, "Disconnect", func(struct{}) bool { return true })
		if _, err := s.ChannelMessageSend(channel, "x"); restStatus(err) != 401 {
			t.Fatalf("REST with revoked token: %v", err)
		}

		// Restored, the old session is gone: RESUME fails and IDENTIFY follows.
		f.SetTokenRejected(token, false)
		if err := open(t, s); err != nil {
			t.Fatal(err)
		}
		snap := waitFor(t, f, "new session", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 1 })
		if st := snap.Tokens[token]; st.Identifies != 2 || st.Resumes != 0 || st.MaxLive != 1 {
			t.Fatalf("stats %+v", st)
		}
		closeSession(t, s)
	})
}

func TestReadyDelayAndRateLimit(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{HeartbeatInterval: time.Second})
	s := newSession(t, f, token)
	limited := make(chan *discordgo.RateLimit, 4)
	s.AddHandler(func(_ *discordgo.Session, rl *discordgo.RateLimit) { limited <- rl })

	const delay = 300 * time.Millisecond
	f.SetReadyDelay(delay)
	began := time.Now()
	if err := open(t, s); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < delay {
		t.Fatalf("Open took %s, READY was delayed %s", took, delay)
	}

	f.RateLimitNext(1, 200*time.Millisecond)
	m, err := s.ChannelMessageSend(channel, "patience")
	if err != nil {
		t.Fatal(err)
	}
	rl := receive(t, limited, "RateLimit event", func(*discordgo.RateLimit) bool { return true })
	if rl.RetryAfter != 200*time.Millisecond {
		t.Fatalf("retry after %s, want 200ms", rl.RetryAfter)
	}
	snap := f.Snapshot()
	if snap.RateLimited != 1 || len(snap.Messages) != 1 || snap.Messages[0].ID != m.ID {
		t.Fatalf("after 429: limited %d, messages %+v", snap.RateLimited, snap.Messages)
	}
	if rs := posts(f.Requests()); len(rs) != 2 || rs[0].Status != http.StatusTooManyRequests || rs[1].Status != http.StatusOK {
		t.Fatalf("the log's message POSTs %+v, want the 429 then the post", rs)
	}
	if _, err := s.ChannelMessageSend(channel, ""); restCode(err) != 50006 {
		t.Fatalf("empty message: %v", err)
	}
	closeSession(t, s)
	waitFor(t, f, "no live session", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 0 })
}

func contents(ms []*discordgo.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}

func restCode(err error) int {
	if re, ok := errors.AsType[*discordgo.RESTError](err); ok && re.Message != nil {
		return re.Message.Code
	}
	return -1
}

func restStatus(err error) int {
	if re, ok := errors.AsType[*discordgo.RESTError](err); ok {
		return re.Response.StatusCode
	}
	return -1
}

// posts are the message POSTs of a request log.
func posts(rs []fakediscord.Request) []fakediscord.Request {
	var out []fakediscord.Request
	for _, r := range rs {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/messages") {
			out = append(out, r)
		}
	}
	return out
}
