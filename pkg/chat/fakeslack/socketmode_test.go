package fakeslack_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

func TestSocketModeLifecycle(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}, AppTokens: []string{appTok}, Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	c := run(t, api)
	c.next(t, socketmode.EventTypeConnecting, nil)
	c.next(t, socketmode.EventTypeConnected, nil)
	c.next(t, socketmode.EventTypeHello, nil)
	waitFor(t, f, "one open socket", func(sn fakeslack.Snapshot) bool { return sn.Apps[appTok].Live == 1 })

	auth, err := api.AuthTest()
	if err != nil || auth.UserID != fakeslack.BotUserID(botTok) || auth.TeamID != f.TeamID() {
		t.Fatalf("auth.test = %+v, %v", auth, err)
	}

	message := func(text string) func(socketmode.Event) bool {
		return func(e socketmode.Event) bool {
			ev, ok := e.Data.(slackevents.EventsAPIEvent)
			if !ok {
				return false
			}
			m, ok := ev.InnerEvent.Data.(*slackevents.MessageEvent)
			return ok && m.Text == text
		}
	}
	inner := func(e socketmode.Event) *slackevents.MessageEvent {
		return e.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
	}

	var root string
	t.Run("events are delivered and acked, posts land", func(t *testing.T) {
		in, err := f.InjectMessage(channel, user, "hi bot", "")
		if err != nil {
			t.Fatal(err)
		}
		got := inner(c.next(t, socketmode.EventTypeEventsAPI, message("hi bot")))
		if got.User != user || got.Channel != channel || got.TimeStamp != in.TS || got.ChannelType != "channel" {
			t.Fatalf("event %+v, injected %+v", got, in)
		}
		waitFor(t, f, "ack", acked(in.TS))

		ch, ts, err := api.PostMessage(channel, slack.MsgOptionText("hello", false))
		if err != nil || ch != channel || ts == "" {
			t.Fatalf("PostMessage = %q %q %v", ch, ts, err)
		}
		root = ts
		echo := inner(c.next(t, socketmode.EventTypeEventsAPI, message("hello")))
		if echo.BotID != fakeslack.BotID(botTok) {
			t.Fatalf("echo of own post %+v", echo)
		}
		if _, _, err := api.PostMessage(channel, slack.MsgOptionText("reply", false), slack.MsgOptionTS(ts)); err != nil {
			t.Fatal(err)
		}
		reply, err := f.InjectMessage(channel, user, "human reply", ts)
		if err != nil {
			t.Fatal(err)
		}
		if got := inner(c.next(t, socketmode.EventTypeEventsAPI, message("human reply"))); got.ThreadTimeStamp != ts {
			t.Fatalf("reply event thread_ts %q, want %q", got.ThreadTimeStamp, ts)
		}
		waitFor(t, f, "ack of reply", acked(reply.TS))

		hist, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel, Limit: 10})
		if err != nil || len(hist.Messages) != 2 || hist.Messages[0].Text != "hello" || hist.Messages[1].Text != "hi bot" {
			t.Fatalf("history = %+v, %v", hist, err)
		}
		if p := hist.Messages[0]; p.ReplyCount != 2 || p.ThreadTimestamp != ts || p.BotID != fakeslack.BotID(botTok) {
			t.Fatalf("thread parent in history %+v", p)
		}
		msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: ts})
		if err != nil || len(msgs) != 3 || msgs[0].Text != "hello" || msgs[1].Text != "reply" || msgs[2].Text != "human reply" {
			t.Fatalf("replies = %+v, %v", msgs, err)
		}
	})

	t.Run("dropped socket reconnects and gets what it missed", func(t *testing.T) {
		if n := f.DropConnections(); n != 1 {
			t.Fatalf("dropped %d", n)
		}
		in, err := f.InjectMessage(channel, user, "while away", root)
		if err != nil {
			t.Fatal(err)
		}
		c.next(t, socketmode.EventTypeConnecting, nil)
		c.next(t, socketmode.EventTypeHello, nil)
		c.next(t, socketmode.EventTypeEventsAPI, message("while away"))
		snap := waitFor(t, f, "ack after reconnect", acked(in.TS))
		if st := snap.Apps[appTok]; st.Connections != 2 || st.Live != 1 || st.MaxLive != 1 {
			t.Fatalf("stats %+v", st)
		}
	})

	t.Run("without pings the client reconnects", func(t *testing.T) {
		f.SetPings(false)
		c.next(t, socketmode.EventTypeConnecting, nil)
		f.SetPings(true)
		c.next(t, socketmode.EventTypeHello, nil)
		snap := waitFor(t, f, "third socket", func(sn fakeslack.Snapshot) bool {
			st := sn.Apps[appTok]
			return st.Connections == 3 && st.Live == 1
		})
		if st := snap.Apps[appTok]; st.MaxLive != 1 {
			t.Fatalf("stats %+v", st)
		}
	})

	t.Run("disconnect request", func(t *testing.T) {
		if n := f.SendDisconnect(); n != 1 {
			t.Fatalf("told %d sockets", n)
		}
		c.next(t, socketmode.EventTypeConnecting, nil)
		c.next(t, socketmode.EventTypeHello, nil)
		snap := waitFor(t, f, "fourth socket", func(sn fakeslack.Snapshot) bool {
			st := sn.Apps[appTok]
			return st.Connections == 4 && st.Live == 1
		})
		if st := snap.Apps[appTok]; st.MaxLive != 1 {
			t.Fatalf("stats %+v", st)
		}
	})

	if err := c.stop(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext = %v, want context.Canceled", err)
	}
	waitFor(t, f, "no open socket", func(sn fakeslack.Snapshot) bool { return sn.Apps[appTok].Live == 0 })
}

func TestInvalidAuth(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}, AppTokens: []string{appTok}})

	t.Run("rejected app token ends RunContext", func(t *testing.T) {
		f.SetTokenRejected(appTok, true)
		defer f.SetTokenRejected(appTok, false)
		c := run(t, newAPI(f, botTok, appTok))
		select {
		case err := <-c.done:
			if err == nil || err.Error() != "invalid_auth" {
				t.Fatalf("RunContext = %v, want invalid_auth", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("RunContext did not return")
		}
	})

	t.Run("revoked mid-session", func(t *testing.T) {
		c := run(t, newAPI(f, botTok, appTok))
		c.next(t, socketmode.EventTypeHello, nil)
		f.SetTokenRejected(appTok, true)
		defer f.SetTokenRejected(appTok, false)
		select {
		case err := <-c.done:
			if err == nil || err.Error() != "invalid_auth" {
				t.Fatalf("RunContext = %v, want invalid_auth", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("RunContext did not return")
		}
		if st := f.Snapshot().Apps[appTok]; st.Live != 0 || st.MaxLive != 1 {
			t.Fatalf("stats %+v", st)
		}
	})

	t.Run("Web API", func(t *testing.T) {
		f.SetTokenRejected(botTok, true)
		if _, err := newAPI(f, botTok, appTok).AuthTest(); err == nil || err.Error() != "invalid_auth" {
			t.Fatalf("auth.test with revoked token: %v", err)
		}
		if _, err := newAPI(f, "xoxb-unknown", appTok).AuthTest(); err == nil || err.Error() != "invalid_auth" {
			t.Fatalf("auth.test with unknown token: %v", err)
		}
		if _, _, err := newAPI(f, appTok, appTok).PostMessage(channel, slack.MsgOptionText("x", false)); err == nil || err.Error() != "not_allowed_token_type" {
			t.Fatalf("chat.postMessage with app token: %v", err)
		}
	})
}

func TestHelloDelayRateLimitAndErrors(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)

	const delay = 200 * time.Millisecond
	f.SetHelloDelay(delay)
	began := time.Now()
	c := run(t, api)
	c.next(t, socketmode.EventTypeConnected, nil)
	c.next(t, socketmode.EventTypeHello, nil)
	if took := time.Since(began); took < delay {
		t.Fatalf("hello after %s, delay was %s", took, delay)
	}

	f.RateLimitNext(1, time.Second)
	_, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false))
	if rl, ok := errors.AsType[*slack.RateLimitedError](err); !ok || rl.RetryAfter != time.Second {
		t.Fatalf("PostMessage under rate limit: %v", err)
	}
	if _, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false)); err != nil {
		t.Fatalf("PostMessage after rate limit: %v", err)
	}
	for _, tc := range []struct {
		channel, text, thread, want string
	}{
		{"C999", "x", "", "channel_not_found"},
		{channel, "", "", "no_text"},
		{channel, "x", "1.000001", "thread_not_found"},
	} {
		_, _, err := api.PostMessage(tc.channel, slack.MsgOptionText(tc.text, false), slack.MsgOptionTS(tc.thread))
		if err == nil || err.Error() != tc.want {
			t.Errorf("PostMessage(%q, %q, thread %q) = %v, want %s", tc.channel, tc.text, tc.thread, err, tc.want)
		}
	}
	if snap := f.Snapshot(); snap.RateLimited != 1 || len(snap.Messages) != 1 {
		t.Fatalf("rate limited %d, messages %+v", snap.RateLimited, snap.Messages)
	}
	if err := c.stop(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunContext = %v", err)
	}
}
