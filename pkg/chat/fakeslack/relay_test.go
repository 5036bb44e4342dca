package fakeslack_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

func meta(key string) slack.MsgOption {
	return slack.MsgOptionMetadata(slack.SlackMetadata{EventType: "relay_part", EventPayload: map[string]any{"key": key}})
}

func mustPost(t *testing.T, api *slack.Client, text, thread string, opts ...slack.MsgOption) string {
	t.Helper()
	opts = append(opts, slack.MsgOptionText(text, false), slack.MsgOptionTS(thread))
	_, ts, err := api.PostMessage(channel, opts...)
	if err != nil {
		t.Fatalf("PostMessage(%q): %v", text, err)
	}
	return ts
}

func TestOracleCountsRelayKeys(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	for _, k := range []string{"a", "b", "a"} {
		mustPost(t, api, "part "+k, "", meta(k))
	}
	mustPost(t, api, "not the relay's", "")
	if sn := f.Snapshot(); sn.Relayed != 2 || !slices.Equal(sn.Duplicates, []string{"a"}) {
		t.Fatalf("%d relayed, duplicates %q; want 2 and a", sn.Relayed, sn.Duplicates)
	}
	mustPost(t, api, "part a, a third time", "", meta("a"))
	if sn := f.Snapshot(); !slices.Equal(sn.Duplicates, []string{"a"}) {
		t.Fatalf("duplicates %q after a third a; want a once", sn.Duplicates)
	}
}

func TestMetadataUnfurlsAndPaging(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	root := mustPost(t, api, "&lt;!here&gt; root", "", meta("m1"), slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl())
	var replies []string
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		replies = append(replies, mustPost(t, api, "reply "+k, root, meta(k)))
	}
	plain := mustPost(t, api, "no metadata", "")

	snap := f.Snapshot()
	if r := snap.Channel(channel); len(r) != 2 || r[0].Text != "&lt;!here&gt; root" || r[0].UnfurlLinks != "false" || r[0].UnfurlMedia != "false" ||
		r[0].Metadata == nil || r[0].Metadata.EventType != "relay_part" || r[0].Metadata.EventPayload["key"] != "m1" || r[1].Metadata != nil || r[1].UnfurlLinks != "" {
		t.Fatalf("roots %+v", r)
	}
	if th := snap.Thread(channel, root); len(th) != 5 || th[4].Metadata.EventPayload["key"] != "e" {
		t.Fatalf("thread %+v", th)
	}

	for _, withMeta := range []bool{false, true} {
		h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel, IncludeAllMetadata: withMeta})
		if err != nil || len(h.Messages) != 2 || h.Messages[0].Timestamp != plain {
			t.Fatalf("history: %+v, %v", h, err)
		}
		if got := h.Messages[1].Metadata.EventPayload["key"]; (got == "m1") != withMeta {
			t.Fatalf("history include_all_metadata=%v: metadata %+v", withMeta, h.Messages[1].Metadata)
		}
		msgs, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root, IncludeAllMetadata: withMeta})
		if err != nil || len(msgs) != 6 {
			t.Fatalf("replies: %d, %v", len(msgs), err)
		}
		if got := msgs[3].Metadata.EventPayload["key"]; (got == "c") != withMeta {
			t.Fatalf("replies include_all_metadata=%v: metadata %+v", withMeta, msgs[3].Metadata)
		}
	}

	// replies: oldest exclusive unless inclusive, latest, limit, cursors.
	got := func(p slack.GetConversationRepliesParameters) []string {
		t.Helper()
		p.ChannelID, p.Timestamp = channel, root
		var out []string
		for page := 0; ; page++ {
			msgs, more, next, err := api.GetConversationReplies(&p)
			if err != nil || page > 10 {
				t.Fatalf("replies %+v: %v", p, err)
			}
			if msgs[0].Timestamp != root {
				t.Fatalf("page %d does not start with the parent", page)
			}
			for _, m := range msgs[1:] {
				out = append(out, m.Timestamp)
			}
			if !more {
				return out
			}
			p.Cursor = next
		}
	}
	eq := func(name string, a, b []string) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %v, want %v", name, a, b)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: %v, want %v", name, a, b)
			}
		}
	}
	eq("oldest", got(slack.GetConversationRepliesParameters{Oldest: replies[1]}), replies[2:])
	eq("oldest inclusive", got(slack.GetConversationRepliesParameters{Oldest: replies[1], Inclusive: true}), replies[1:])
	eq("latest", got(slack.GetConversationRepliesParameters{Latest: replies[3]}), replies[:3])
	eq("pages of 2", got(slack.GetConversationRepliesParameters{Limit: 2}), replies)
	eq("pages of 1 after oldest", got(slack.GetConversationRepliesParameters{Limit: 1, Oldest: replies[0]}), replies[1:])

	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel, Limit: 1})
	if err != nil || !h.HasMore || h.ResponseMetaData.NextCursor == "" || h.Messages[0].Timestamp != plain {
		t.Fatalf("history page 1: %+v, %v", h, err)
	}
	h, err = api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel, Limit: 1, Cursor: h.ResponseMetaData.NextCursor})
	if err != nil || h.HasMore || len(h.Messages) != 1 || h.Messages[0].Timestamp != root {
		t.Fatalf("history page 2: %+v, %v", h, err)
	}
	if _, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel, Cursor: "!!"}); err == nil || err.Error() != "invalid_cursor" {
		t.Fatalf("bad cursor: %v", err)
	}
	_, _, err = api.PostMessage(channel, slack.MsgOptionText("x", false), slack.MsgOptionMetadata(slack.SlackMetadata{EventPayload: map[string]any{"k": 1}}))
	if err == nil || err.Error() != "invalid_metadata_format" {
		t.Fatalf("metadata without event_type: %v", err)
	}
}

func TestInfoUpdateAndChannelFaults(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ch, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil || ch.ID != channel || !ch.IsMember || !ch.IsChannel {
		t.Fatalf("info: %+v, %v", ch, err)
	}
	if _, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: "C999"}); err == nil || err.Error() != "channel_not_found" {
		t.Fatalf("info of unknown: %v", err)
	}

	ts := mustPost(t, api, "one", "", meta("k"))
	if _, _, _, err := api.UpdateMessage(channel, ts, slack.MsgOptionText("two", false)); err != nil {
		t.Fatal(err)
	}
	m := f.Snapshot().Messages[0]
	if m.Text != "two" || len(m.Edits) != 1 || m.Edits[0] != "one" || m.Metadata == nil || m.EditedTS <= m.TS {
		t.Fatalf("after update %+v", m)
	}
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel})
	if err != nil || h.Messages[0].Text != "two" || h.Messages[0].Edited == nil || h.Messages[0].Edited.Timestamp != m.EditedTS {
		t.Fatalf("history after update: %+v, %v", h, err)
	}
	if _, _, _, err := api.UpdateMessage(channel, "1.000001", slack.MsgOptionText("x", false)); err == nil || err.Error() != "message_not_found" {
		t.Fatalf("update of unknown ts: %v", err)
	}
	if _, _, _, err := newAPI(f, "xoxb-other", appTok).UpdateMessage(channel, ts, slack.MsgOptionText("x", false)); err == nil || err.Error() != "cant_update_message" {
		t.Fatalf("update by another bot: %v", err)
	}
	human, err := f.InjectMessage(channel, user, "typed", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessage(channel, human.TS, slack.MsgOptionText("x", false)); err == nil || err.Error() != "cant_update_message" {
		t.Fatalf("update of a human's message: %v", err)
	}

	f.SetNotInChannel(channel, true)
	ch, err = api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil || ch.IsMember {
		t.Fatalf("info while removed: %+v, %v", ch, err)
	}
	for name, call := range map[string]func() error{
		"post": func() error { _, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false)); return err },
		"update": func() error {
			_, _, _, err := api.UpdateMessage(channel, ts, slack.MsgOptionText("x", false))
			return err
		},
		"history": func() error {
			_, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel})
			return err
		},
		"replies": func() error {
			_, _, _, err := api.GetConversationReplies(&slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: ts})
			return err
		},
	} {
		if err := call(); err == nil || err.Error() != "not_in_channel" {
			t.Errorf("%s while removed: %v", name, err)
		}
	}
	f.SetNotInChannel(channel, false)

	f.SetChannelArchived(channel, true)
	ch, err = api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil || !ch.IsArchived {
		t.Fatalf("info while archived: %+v, %v", ch, err)
	}
	if _, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false)); err == nil || err.Error() != "is_archived" {
		t.Fatalf("post while archived: %v", err)
	}
	if _, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel}); err != nil {
		t.Fatalf("history while archived: %v", err)
	}
	f.SetChannelArchived(channel, false)

	f.SetChannelUnknown(channel, true)
	if _, err := api.GetConversationInfo(&slack.GetConversationInfoInput{ChannelID: channel}); err == nil || err.Error() != "channel_not_found" {
		t.Fatalf("info of a channel made unknown: %v", err)
	}
	if _, _, err := api.PostMessage(channel, slack.MsgOptionText("x", false)); err == nil || err.Error() != "channel_not_found" {
		t.Fatalf("post to a channel made unknown: %v", err)
	}
	f.SetChannelUnknown(channel, false)
	mustPost(t, api, "back", "")
	if n := len(f.Snapshot().Messages); n != 3 {
		t.Fatalf("%d messages, want 3", n)
	}
}

func TestMethodLimit(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	f.SetMethodLimit("conversations.history", 2, time.Minute)
	hist := func() error {
		_, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: channel})
		return err
	}
	for range 2 {
		if err := hist(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		rl, ok := errors.AsType[*slack.RateLimitedError](hist())
		if !ok || rl.RetryAfter <= 0 || rl.RetryAfter > time.Minute {
			t.Fatalf("over the limit: %+v", rl)
		}
	}
	mustPost(t, api, "other methods are not limited", "")
	if n := f.Snapshot().RateLimited; n != 2 {
		t.Fatalf("429s %d, want 2", n)
	}
	var statuses []int
	for _, r := range f.Requests() {
		if r.Path == "/api/conversations.history" {
			statuses = append(statuses, r.Status)
		}
	}
	if want := []int{200, 200, 429, 429}; !slices.Equal(statuses, want) {
		t.Fatalf("the log's conversations.history answers %v, want %v", statuses, want)
	}
	f.SetMethodLimit("conversations.history", 0, 0)
	if err := hist(); err != nil {
		t.Fatalf("after the limit is removed: %v", err)
	}
}

func TestAcceptThenFailSlowAndHold(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}, AppTokens: []string{appTok}})
	api := newAPI(f, botTok, appTok)

	f.AcceptThenFail(1, fakeslack.Fail502)
	_, _, err := api.PostMessage(channel, slack.MsgOptionText("lost 502", false))
	if sc, ok := errors.AsType[slack.StatusCodeError](err); !ok || sc.Code != http.StatusBadGateway {
		t.Fatalf("accepted then 502: %v", err)
	}
	f.AcceptThenFail(1, fakeslack.FailCut)
	_, _, err = api.PostMessage(channel, slack.MsgOptionText("lost cut", false))
	if _, ok := errors.AsType[*url.Error](err); !ok {
		t.Fatalf("accepted then cut: %v (%T)", err, err)
	}
	mustPost(t, api, "answered", "")
	snap := f.Snapshot()
	if len(snap.Messages) != 3 || snap.Messages[0].Text != "lost 502" || snap.Messages[1].Text != "lost cut" || snap.Posts != 3 {
		t.Fatalf("messages %+v, posts %d: each stored once, none re-sent", snap.Messages, snap.Posts)
	}
	if n := len(snap.Envelopes); n != 3 {
		t.Fatalf("%d events for 3 stored messages", n)
	}

	f.SetSlow(time.Minute)
	quick := slack.New(botTok, slack.OptionAPIURL(f.URL()+"/api/"), slack.OptionHTTPClient(&http.Client{Timeout: 200 * time.Millisecond}))
	if _, _, err := quick.PostMessage(channel, slack.MsgOptionText("slow", false)); err == nil {
		t.Fatal("a slow answer arrived within the client's timeout")
	}
	f.SetSlow(0)
	if m := f.Snapshot().Messages; len(m) != 4 || m[3].Text != "slow" {
		t.Fatalf("slow post not stored: %+v", m)
	}

	h := f.HoldNextPost()
	done := make(chan error, 1)
	go func() { _, _, err := api.PostMessage(channel, slack.MsgOptionText("held", false)); done <- err }()
	select {
	case <-h.Arrived():
	case <-time.After(waitLimit):
		t.Fatal("held post never arrived")
	}
	if n := len(f.Snapshot().Messages); n != 4 {
		t.Fatalf("held post stored before release: %d messages", n)
	}
	h.Release()
	if err := <-done; err != nil {
		t.Fatalf("released post: %v", err)
	}
	if m := f.Snapshot().Messages; len(m) != 5 || m[4].Text != "held" {
		t.Fatalf("after release %+v", m)
	}

	// Close while a post is held returns, dropping it unstored.
	f.HoldNextPost()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	go func() { _, _, _ = api.PostMessageContext(ctx, channel, slack.MsgOptionText("dropped", false)) }()
	if _, err := f.WaitFor(ctx, func(sn fakeslack.Snapshot) bool { return sn.Posts == 6 }); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if m := f.Snapshot().Messages; len(m) != 5 {
		t.Fatalf("post held at Close was stored: %+v", m)
	}
}
