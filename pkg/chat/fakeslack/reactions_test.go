package fakeslack_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

func TestReactions(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{Channels: []string{channel}})
	api := newAPI(f, botTok, appTok)
	ctx := context.Background()
	root := mustPost(t, api, "root", "")
	reply, err := f.InjectMessage(channel, user, "human reply", root)
	if err != nil {
		t.Fatal(err)
	}
	ref := slack.NewRefToMessage(channel, reply.TS)
	if err := api.AddReactionContext(ctx, "eyes", ref); err != nil {
		t.Fatalf("reactions.add: %v", err)
	}
	if err := api.AddReactionContext(ctx, "eyes", ref); err == nil || err.Error() != "already_reacted" {
		t.Fatalf("the same reaction again: %v", err)
	}
	const otherBot = "xoxb-other"
	if err := newAPI(f, otherBot, appTok).AddReactionContext(ctx, "eyes", ref); err != nil {
		t.Fatalf("another bot's reaction: %v", err)
	}
	if err := api.AddReactionContext(ctx, "+1", slack.NewRefToMessage(channel, root)); err != nil {
		t.Fatalf("reaction on the root: %v", err)
	}
	for _, tc := range []struct {
		name, channel, ts, want string
	}{
		{"eyes", channel, "1.000001", "message_not_found"},
		{"eyes", "C999", reply.TS, "channel_not_found"},
		{"", channel, reply.TS, "invalid_name"},
		{":eyes:", channel, reply.TS, "invalid_name"},
		{"eyes", channel, "", "no_item_specified"},
		{"eyes", channel, "yesterday", "bad_timestamp"},
	} {
		if err := api.AddReactionContext(ctx, tc.name, slack.NewRefToMessage(tc.channel, tc.ts)); err == nil || err.Error() != tc.want {
			t.Errorf("reactions.add(%q, %q, %q) = %v, want %s", tc.name, tc.channel, tc.ts, err, tc.want)
		}
	}
	if err := newAPI(f, "", appTok).AddReactionContext(ctx, "eyes", ref); err == nil || err.Error() != "not_authed" {
		t.Errorf("without a token: %v", err)
	}
	if err := newAPI(f, appTok, appTok).AddReactionContext(ctx, "eyes", ref); err == nil || err.Error() != "not_allowed_token_type" {
		t.Errorf("with an app token: %v", err)
	}
	f.SetTokenRejected(otherBot, true)
	if err := newAPI(f, otherBot, appTok).AddReactionContext(ctx, "heart", ref); err == nil || err.Error() != "invalid_auth" {
		t.Errorf("with a revoked token: %v", err)
	}

	want := []fakeslack.Reaction{{Name: "eyes", User: fakeslack.BotUserID(botTok)}, {Name: "eyes", User: fakeslack.BotUserID(otherBot)}}
	if th := f.Snapshot().Thread(channel, root); len(th) != 1 || !slices.Equal(th[0].Reactions, want) {
		t.Fatalf("thread %+v", th)
	}
	msgs, _, _, err := api.GetConversationRepliesContext(ctx, &slack.GetConversationRepliesParameters{ChannelID: channel, Timestamp: root})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("replies: %+v, %v", msgs, err)
	}
	if r := msgs[1].Reactions; len(r) != 1 || r[0].Name != "eyes" || r[0].Count != 2 ||
		!slices.Equal(r[0].Users, []string{fakeslack.BotUserID(botTok), fakeslack.BotUserID(otherBot)}) {
		t.Fatalf("reply's reactions %+v", r)
	}
	h, err := api.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: channel})
	if err != nil || len(h.Messages) != 1 || len(h.Messages[0].Reactions) != 1 || h.Messages[0].Reactions[0].Name != "+1" {
		t.Fatalf("history: %+v, %v", h, err)
	}

	f.SetMethodLimit("reactions.add", 1, time.Minute)
	if err := api.AddReactionContext(ctx, "heart", ref); err != nil {
		t.Fatalf("first under the limit: %v", err)
	}
	if _, ok := errors.AsType[*slack.RateLimitedError](api.AddReactionContext(ctx, "tada", ref)); !ok {
		t.Fatal("reactions.add over its method limit was not rate limited")
	}
	if got := f.Snapshot().Thread(channel, root)[0].Reactions; len(got) != 3 {
		t.Fatalf("reactions after the limit %+v", got)
	}
}
