package fakeslack_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// The scopes as slack-go reads them: auth.test's X-OAuth-Scopes lists what
// the app holds, a scope taken away leaves it and makes the methods that
// need it answer missing_scope with needed and provided, and
// conversations.info asks for the read scope of the channel's own kind.
func TestScopesThroughSlackGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const private = "G789"
	f := start(t, fakeslack.Options{Channels: []string{channel, private}})
	api := newAPI(f, botTok, appTok)

	scopes := func() []string {
		t.Helper()
		me, err := api.AuthTestContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(me.Header.Get("X-OAuth-Scopes"), ",")
	}
	for _, want := range []string{"chat:write", "channels:read", "channels:history", "groups:read", "groups:history", "reactions:write"} {
		if !slices.Contains(scopes(), want) {
			t.Errorf("X-OAuth-Scopes %q lacks %s", scopes(), want)
		}
	}

	f.SetScopeGranted("channels:read", false)
	if slices.Contains(scopes(), "channels:read") {
		t.Errorf("X-OAuth-Scopes %q still lists a withheld scope", scopes())
	}
	_, err := api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != "missing_scope" || se.Needed != "channels:read" ||
		!strings.Contains(se.Provided, "groups:read") || strings.Contains(se.Provided, "channels:read") {
		t.Fatalf("conversations.info without channels:read: %#v, want missing_scope needing channels:read", err)
	}
	// A private channel's reader needs groups:read, which it still has.
	ch, err := api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: private})
	if err != nil || !ch.IsPrivate || !ch.IsMember || ch.IsArchived {
		t.Fatalf("private channel: %+v, %v", ch, err)
	}
	f.SetScopeGranted("channels:read", true)
	f.SetNotInChannel(channel, true)
	f.SetChannelArchived(channel, true)
	ch, err = api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
	if err != nil || ch.IsPrivate || ch.IsMember || !ch.IsArchived {
		t.Fatalf("public channel left and archived: %+v, %v", ch, err)
	}
	f.SetChannelArchived(channel, false)
	f.SetNotInChannel(channel, false)

	f.SetScopeGranted("chat:write", false)
	if _, _, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("hi", false)); !errors.As(err, &se) || se.Err != "missing_scope" || se.Needed != "chat:write" {
		t.Errorf("chat.postMessage without chat:write: %v", err)
	}
	if n := len(f.Snapshot().Messages); n != 0 {
		t.Errorf("a post refused for its scope stored %d messages", n)
	}
	f.SetScopeGranted("chat:write", true)
	if _, _, err := api.PostMessageContext(ctx, channel, slack.MsgOptionText("hi", false)); err != nil {
		t.Errorf("chat:write given back: %v", err)
	}
}

// The app-level token holds connections:write; without it
// apps.connections.open answers missing_scope and hands out no socket.
func TestConnectionsWriteScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := start(t, fakeslack.Options{})
	api := newAPI(f, botTok, appTok)
	if _, u, err := api.StartSocketModeContext(ctx); err != nil || u == "" {
		t.Fatalf("apps.connections.open: %q, %v", u, err)
	}
	f.SetScopeGranted("connections:write", false)
	_, _, err := api.StartSocketModeContext(ctx)
	var se slack.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != "missing_scope" || se.Needed != "connections:write" {
		t.Fatalf("apps.connections.open without connections:write: %#v", err)
	}
	// The bot token's scopes are another token's: untouched.
	if _, err := api.AuthTestContext(ctx); err != nil {
		t.Fatal(err)
	}
}

// Every answer to an accepted token carries both scope headers, as Slack's
// do: what the token holds and what the method takes; an answer to a
// refused token carries neither. (slack-go hands the headers of auth.test
// alone to its caller, so this test asks over plain HTTP.)
func TestScopeHeadersOnEveryAnswer(t *testing.T) {
	t.Parallel()
	f := start(t, fakeslack.Options{BotTokens: []string{botTok}})
	ask := func(method, token string) http.Header {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, f.URL()+"/api/"+method, strings.NewReader(url.Values{"channel": {channel}, "text": {"hi"}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.Header
	}
	for method, accepted := range map[string]string{
		"auth.test":                    "",
		"conversations.info":           "channels:read,groups:read,im:read,mpim:read",
		"conversations.history":        "channels:history,groups:history,im:history,mpim:history",
		"chat.postMessage":             "chat:write",
		"reactions.add":                "reactions:write",
		"files.getUploadURLExternal":   "files:write",
		"files.completeUploadExternal": "files:write",
		"files.info":                   "files:read",
	} {
		h := ask(method, botTok)
		if !strings.Contains(h.Get("X-OAuth-Scopes"), "chat:write,channels:read") {
			t.Errorf("%s: X-OAuth-Scopes %q", method, h.Get("X-OAuth-Scopes"))
		}
		if h.Get("X-Accepted-OAuth-Scopes") != accepted {
			t.Errorf("%s: X-Accepted-OAuth-Scopes %q, want %q", method, h.Get("X-Accepted-OAuth-Scopes"), accepted)
		}
	}
	if h := ask("auth.test", "xoxb-unknown"); h.Get("X-OAuth-Scopes") != "" {
		t.Errorf("a refused token was told its scopes: %q", h.Get("X-OAuth-Scopes"))
	}
}
