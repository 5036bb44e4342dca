package slack_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	botTok  = "xoxb-111-222-secretvalue"
	channel = "C0RELAY01"
	waitMax = 10 * time.Second
)

type env struct {
	f *fakeslack.Server
	p *slack.Poster
}

func setup(t *testing.T, opts slack.Options) env {
	t.Helper()
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{botTok}, Channels: []string{channel, "C0OTHER01"}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return env{f: f, p: newPoster(t, f, channel, opts)}
}

// newPoster leaves pacing off unless opts set it: the tests of pacing
// set it, the others post faster than Slack's steady rate.
func newPoster(t *testing.T, f *fakeslack.Server, ch string, opts slack.Options) *slack.Poster {
	t.Helper()
	if opts.PostInterval == 0 {
		opts.PostInterval = -1
	}
	p, err := slack.NewPoster(&spec.SlackConfig{BotToken: spec.NewSecret(botTok), ChannelID: ch, APIURL: f.URL()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), waitMax)
	t.Cleanup(cancel)
	return c
}

func post(t *testing.T, e env, key, thread, text string) string {
	t.Helper()
	ts, err := e.p.Post(ctx(t), relay.Part{Key: key, Thread: thread, Text: text, FirstAttempt: time.Now()})
	if err != nil || ts == "" {
		t.Fatalf("Post(%s) = %q, %v", key, ts, err)
	}
	return ts
}

// relayErr asserts err is a *relay.Error of kind and returns it; every
// error is also checked for the token.
func relayErr(t *testing.T, err error, kind relay.Kind) *relay.Error {
	t.Helper()
	noToken(t, err)
	var re *relay.Error
	if !errors.As(err, &re) || re.Kind != kind {
		t.Fatalf("error %v (%T), want kind %s", err, err, kind)
	}
	return re
}

func noToken(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, botTok) || strings.Contains(s, "secretvalue") {
			t.Fatalf("token in error text: %s", s)
		}
	}
}

func TestRootRepliesEscapingUnfurlsMetadata(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	if err := e.p.CheckChannel(ctx(t)); err != nil {
		t.Fatalf("CheckChannel: %v", err)
	}
	root := post(t, e, "m1/0", "", "Session *one*")
	thread, err := e.p.StartThread(ctx(t), root, "Session one")
	if err != nil || thread != root {
		t.Fatalf("StartThread = %q, %v; want the root ts %q", thread, err, root)
	}
	hostile := "<!channel> <!here> <!everyone> <@U1> <#C1> <https://evil.example|click> a & b > c &amp;"
	r1 := post(t, e, "m2/0", thread, hostile)
	r2 := post(t, e, "m2/1", thread, "second part https://example.com/x.png")

	snap := e.f.Snapshot()
	roots := snap.Channel(channel)
	if len(roots) != 1 || roots[0].TS != root || roots[0].Text != "Session *one*" {
		t.Fatalf("roots %+v", roots)
	}
	replies := snap.Thread(channel, root)
	if len(replies) != 2 || replies[0].TS != r1 || replies[1].TS != r2 {
		t.Fatalf("replies %+v", replies)
	}
	want := "&lt;!channel&gt; &lt;!here&gt; &lt;!everyone&gt; &lt;@U1&gt; &lt;#C1&gt; &lt;https://evil.example|click&gt; a &amp; b &gt; c &amp;amp;"
	if replies[0].Text != want {
		t.Fatalf("stored text\n%q\nwant\n%q", replies[0].Text, want)
	}
	for i, m := range []fakeslack.Message{roots[0], replies[0], replies[1]} {
		if m.UnfurlLinks != "false" || m.UnfurlMedia != "false" {
			t.Errorf("message %d unfurls links=%q media=%q", i, m.UnfurlLinks, m.UnfurlMedia)
		}
		if m.Parse != "none" || m.LinkNames != "false" {
			t.Errorf("message %d posted with parse=%q link_names=%q, want none and false", i, m.Parse, m.LinkNames)
		}
		wantKey := []string{"m1/0", "m2/0", "m2/1"}[i]
		if m.Metadata == nil || m.Metadata.EventType != slack.MetadataEventType || m.Metadata.EventPayload["key"] != wantKey {
			t.Errorf("message %d metadata %+v, want key %s", i, m.Metadata, wantKey)
		}
	}
	if snap.Posts != 3 {
		t.Fatalf("%d chat.postMessage calls, want 3", snap.Posts)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{PageSize: 2})
	first := time.Now()
	root := post(t, e, "r1/0", "", "root one")
	other := post(t, e, "r2/0", "", "root two")
	var roots []string
	for i := range 5 {
		roots = append(roots, post(t, e, fmt.Sprintf("r%d/0", i+3), "", "same text"))
	}
	a := post(t, e, "p1/0", root, "part a")
	b := post(t, e, "p1/1", root, "same text")
	for i := range 4 {
		post(t, e, fmt.Sprintf("p%d/0", i+2), root, "filler")
	}
	// A human writes the same text as a part never posted, in the channel
	// and in the thread: a lookup must not take it for the part.
	if _, err := e.f.InjectMessage(channel, "U0HUMAN01", "never posted", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.InjectMessage(channel, "U0HUMAN01", "never posted", root); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, key, thread, after, want string
	}{
		{"oldest root, no bound, over pages", "r1/0", "", "", root},
		{"root after its predecessor", "r2/0", "", root, other},
		{"root among equal texts", "r5/0", "", other, roots[2]},
		{"root before after is not seen", "r1/0", "", other, ""},
		{"root never posted", "r9/0", "", "", ""},
		{"reply, no bound", "p1/0", root, "", a},
		{"reply after its predecessor", "p1/1", root, a, b},
		{"reply before after is not seen", "p1/0", root, a, ""},
		{"reply never posted", "p9/0", root, "", ""},
		{"root's key is not a reply", "r1/0", root, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := e.p.Lookup(ctx(t), relay.Part{Key: tc.key, Thread: tc.thread, Text: "never posted", FirstAttempt: first}, tc.after)
			if err != nil {
				t.Fatal(err)
			}
			if found != (tc.want != "") || got != tc.want {
				t.Fatalf("Lookup = %q, %v; want %q", got, found, tc.want)
			}
		})
	}

	t.Run("first attempt bounds the search", func(t *testing.T) {
		// A part first attempted long after every message here cannot be
		// any of them, whatever after says.
		late := time.Now().Add(2 * time.Hour)
		if _, found, err := e.p.Lookup(ctx(t), relay.Part{Key: "r1/0", FirstAttempt: late}, ""); err != nil || found {
			t.Fatalf("Lookup = %v, %v; want not found", found, err)
		}
	})

	t.Run("unknown thread", func(t *testing.T) {
		// Its root is not there, in a channel the bot can reach: the
		// session's place is gone, and the relay makes it again.
		_, _, err := e.p.Lookup(ctx(t), relay.Part{Key: "x/0", Thread: "1.000001"}, "")
		relayErr(t, err, relay.Gone)
	})
}

func TestEdit(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	root := post(t, e, "m1/0", "", "before")
	if err := e.p.Edit(ctx(t), relay.EditRequest{RemoteID: root, Text: "after <!here> & more"}); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Edit(ctx(t), relay.EditRequest{RemoteID: root, Text: "after <!here> & more"}); err != nil {
		t.Fatalf("repeated edit: %v", err)
	}
	m := e.f.Snapshot().Channel(channel)[0]
	if m.Text != "after &lt;!here&gt; &amp; more" || len(m.Edits) != 2 || m.Edits[0] != "before" {
		t.Fatalf("edited message %+v", m)
	}
	if m.Metadata == nil || m.Metadata.EventPayload["key"] != "m1/0" {
		t.Fatalf("metadata lost in edit: %+v", m.Metadata)
	}
	// chat.update's parse default is not chat.postMessage's: the edit
	// must say parse=none and link_names=false itself.
	if m.Parse != "none" || m.LinkNames != "false" {
		t.Fatalf("edited with parse=%q link_names=%q, want none and false", m.Parse, m.LinkNames)
	}
	err := e.p.Edit(ctx(t), relay.EditRequest{RemoteID: "1.000001", Text: "x"})
	if re := relayErr(t, err, relay.Refused); re.Code != "message_not_found" {
		t.Fatalf("code %q", re.Code)
	}
	human, err := e.f.InjectMessage(channel, "U0HUMAN01", "mine", "")
	if err != nil {
		t.Fatal(err)
	}
	err = e.p.Edit(ctx(t), relay.EditRequest{RemoteID: human.TS, Text: "x"})
	if re := relayErr(t, err, relay.Refused); re.Code != "cant_update_message" {
		t.Fatalf("code %q", re.Code)
	}
	if err := e.p.Archive(ctx(t), root); err != nil {
		t.Fatalf("Archive: %v", err)
	}
}

func TestCheckChannelAndBlocked(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	unknown := newPoster(t, e.f, "C0NOPE001", slack.Options{})
	err := unknown.CheckChannel(ctx(t))
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonChannelUnavailable || re.Code != "channel_not_found" {
		t.Fatalf("unknown channel: %+v", re)
	}

	e.f.SetChannelUnknown(channel, true)
	err = e.p.CheckChannel(ctx(t))
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonChannelUnavailable {
		t.Fatalf("channel made unknown: %+v", re)
	}
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: "x"})
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "channel_not_found" {
		t.Fatalf("post to unknown channel: %+v", re)
	}
	e.f.SetChannelUnknown(channel, false)

	e.f.SetNotInChannel(channel, true)
	err = e.p.CheckChannel(ctx(t))
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonChannelUnavailable || re.Code != "not_in_channel" {
		t.Fatalf("bot removed: %+v", re)
	}
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: "x"})
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "not_in_channel" {
		t.Fatalf("post while removed: %+v", re)
	}
	e.f.SetNotInChannel(channel, false)
	if err := e.p.CheckChannel(ctx(t)); err != nil {
		t.Fatalf("CheckChannel after fix: %v", err)
	}

	e.f.SetChannelArchived(channel, true)
	err = e.p.CheckChannel(ctx(t))
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonChannelUnavailable || re.Code != "is_archived" {
		t.Fatalf("archived: %+v", re)
	}
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: "x"})
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "is_archived" {
		t.Fatalf("post while archived: %+v", re)
	}
	e.f.SetChannelArchived(channel, false)

	e.f.SetTokenRejected(botTok, true)
	err = e.p.CheckChannel(ctx(t))
	if re := relayErr(t, err, relay.Blocked); re.Reason != relay.ReasonRelayBlocked || re.Code != "invalid_auth" {
		t.Fatalf("revoked token at check: %+v", re)
	}
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: "x"})
	if re := relayErr(t, err, relay.Blocked); re.Code != "invalid_auth" {
		t.Fatalf("revoked token at post: %+v", re)
	}
	_, _, err = e.p.Lookup(ctx(t), relay.Part{Key: "k/0"}, "")
	relayErr(t, err, relay.Blocked)
	e.f.SetTokenRejected(botTok, false)

	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: strings.Repeat("x", 40001)})
	if re := relayErr(t, err, relay.Refused); re.Code != "msg_too_long" {
		t.Fatalf("too long: %+v", re)
	}
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: ""})
	if re := relayErr(t, err, relay.Refused); re.Code != "no_text" {
		t.Fatalf("empty: %+v", re)
	}
	if n := len(e.f.Snapshot().Messages); n != 0 {
		t.Fatalf("%d messages stored by failed posts", n)
	}
}

func TestRateLimited(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	e.f.RateLimitNext(1, 3*time.Second)
	_, err := e.p.Post(ctx(t), relay.Part{Key: "k/0", Text: "x"})
	if re := relayErr(t, err, relay.RateLimited); re.RetryAfter != 3*time.Second {
		t.Fatalf("injected 429: %+v", re)
	}

	e.f.SetMethodLimit("chat.postMessage", 1, time.Minute)
	post(t, e, "k/0", "", "x")
	_, err = e.p.Post(ctx(t), relay.Part{Key: "k/1", Text: "y"})
	if re := relayErr(t, err, relay.RateLimited); re.RetryAfter <= 0 || re.RetryAfter > time.Minute {
		t.Fatalf("method limit: %+v", re)
	}
	e.f.SetMethodLimit("conversations.history", 1, time.Minute)
	if _, _, err := e.p.Lookup(ctx(t), relay.Part{Key: "k/0"}, ""); err != nil {
		t.Fatal(err)
	}
	_, _, err = e.p.Lookup(ctx(t), relay.Part{Key: "k/0"}, "")
	relayErr(t, err, relay.RateLimited)
	snap := e.f.Snapshot()
	if snap.RateLimited != 3 || len(snap.Messages) != 1 || snap.Posts != 3 {
		t.Fatalf("429s %d, messages %d, posts %d", snap.RateLimited, len(snap.Messages), snap.Posts)
	}
}

// An accepted post whose answer is lost is Uncertain, is never re-sent by
// the client, and is found by Lookup under the ts the fake gave it.
func TestAcceptedThenFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mode fakeslack.FailMode
	}{{"502", fakeslack.Fail502}, {"connection cut", fakeslack.FailCut}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, slack.Options{})
			root := post(t, e, "m1/0", "", "root")
			e.f.AcceptThenFail(1, tc.mode)
			part := relay.Part{Key: "m2/0", Thread: root, Text: "lost answer", FirstAttempt: time.Now()}
			_, err := e.p.Post(ctx(t), part)
			relayErr(t, err, relay.Uncertain)
			snap := e.f.Snapshot()
			replies := snap.Thread(channel, root)
			if snap.Posts != 2 || len(replies) != 1 {
				t.Fatalf("posts %d, replies %+v: the client re-sent or the fake did not store", snap.Posts, replies)
			}
			got, found, err := e.p.Lookup(ctx(t), part, root)
			if err != nil || !found || got != replies[0].TS {
				t.Fatalf("Lookup = %q, %v, %v; want %q", got, found, err, replies[0].TS)
			}
			rootPart := relay.Part{Key: "m3/0", Text: "lost root", FirstAttempt: time.Now()}
			e.f.AcceptThenFail(1, tc.mode)
			_, err = e.p.Post(ctx(t), rootPart)
			relayErr(t, err, relay.Uncertain)
			got, found, err = e.p.Lookup(ctx(t), rootPart, root)
			if roots := e.f.Snapshot().Channel(channel); err != nil || !found || len(roots) != 2 || got != roots[1].TS {
				t.Fatalf("root Lookup = %q, %v, %v; roots %+v", got, found, err, roots)
			}
		})
	}
}

func TestSlowAnswerAndHeldPost(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{Timeout: 300 * time.Millisecond})
	e.f.SetSlow(5 * time.Second)
	part := relay.Part{Key: "m1/0", Text: "slow", FirstAttempt: time.Now()}
	_, err := e.p.Post(ctx(t), part)
	relayErr(t, err, relay.Uncertain)
	e.f.SetSlow(0)
	if got, found, err := e.p.Lookup(ctx(t), part, ""); err != nil || !found || got != e.f.Snapshot().Messages[0].TS {
		t.Fatalf("Lookup after timeout = %q, %v, %v", got, found, err)
	}

	// A post held at the fake and given up by its client: not stored while
	// held, so a lookup then says not found; stored once released.
	h := e.f.HoldNextPost()
	held := relay.Part{Key: "m2/0", Text: "held", FirstAttempt: time.Now()}
	c, cancel := context.WithCancel(ctx(t))
	errc := make(chan error, 1)
	go func() { _, err := e.p.Post(c, held); errc <- err }()
	select {
	case <-h.Arrived():
	case <-time.After(waitMax):
		t.Fatal("post never reached the fake")
	}
	if _, found, err := e.p.Lookup(ctx(t), held, ""); err != nil || found {
		t.Fatalf("Lookup while held = %v, %v", found, err)
	}
	cancel()
	relayErr(t, <-errc, relay.Uncertain)
	h.Release()
	w, stop := context.WithTimeout(context.Background(), waitMax)
	defer stop()
	if _, err := e.f.WaitFor(w, func(sn fakeslack.Snapshot) bool { return len(sn.Messages) == 2 }); err != nil {
		t.Fatalf("released post not stored: %v", err)
	}
	if _, found, err := e.p.Lookup(ctx(t), held, ""); err != nil || !found {
		t.Fatalf("Lookup after release = %v, %v", found, err)
	}
}

func TestNewPosterRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []*spec.SlackConfig{
		nil,
		{ChannelID: channel},
		{BotToken: spec.NewSecret(botTok)},
	} {
		if _, err := slack.NewPoster(cfg, slack.Options{}); err == nil {
			t.Errorf("NewPoster(%+v) accepted", cfg)
		} else {
			noToken(t, err)
		}
	}
}

// Sessions post at the same time through one Poster; each lands once in
// its own thread, in its own order.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	e := setup(t, slack.Options{})
	const sessions, parts = 6, 5
	roots := make([]string, sessions)
	errc := make(chan error, sessions)
	for s := range sessions {
		go func() {
			root, err := e.p.Post(ctx(t), relay.Part{Key: fmt.Sprintf("s%d/0", s), Text: fmt.Sprintf("session %d", s)})
			if err != nil {
				errc <- err
				return
			}
			roots[s] = root
			for i := range parts {
				if _, err := e.p.Post(ctx(t), relay.Part{Key: fmt.Sprintf("s%d-%d/0", s, i), Thread: root, Text: fmt.Sprintf("s%d part %d", s, i)}); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range sessions {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	snap := e.f.Snapshot()
	for s, root := range roots {
		th := snap.Thread(channel, root)
		if len(th) != parts {
			t.Fatalf("session %d: %d replies", s, len(th))
		}
		for i, m := range th {
			if want := fmt.Sprintf("s%d part %d", s, i); m.Text != want {
				t.Fatalf("session %d reply %d = %q, want %q", s, i, m.Text, want)
			}
		}
	}
	if n := len(snap.Messages); n != sessions*(parts+1) {
		t.Fatalf("%d messages", n)
	}
}
