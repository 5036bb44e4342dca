package slack

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
)

// The channel's line from each answer conversations.info can give: what to
// do, or nothing when a failed scope line already says it.
func TestChannelLines(t *testing.T) {
	ch := func(set func(*slackapi.Channel)) *slackapi.Channel {
		c := &slackapi.Channel{}
		c.Name, c.IsMember = "ops", true
		set(c)
		return c
	}
	for _, tc := range []struct {
		name          string
		ch            *slackapi.Channel
		err           error
		scopeExplains bool
		ok            bool
		says          string // "" for no line
	}{
		{"a member", ch(func(*slackapi.Channel) {}), nil, false, true, "#ops (C1), a public channel"},
		{"private", ch(func(c *slackapi.Channel) { c.IsPrivate = true }), nil, false, true, "a private channel"},
		{"a DM carries no is_member", ch(func(c *slackapi.Channel) { c.IsIM, c.IsMember = true, false }), nil, false, true, "a direct message"},
		{"not a member", ch(func(c *slackapi.Channel) { c.IsMember = false }), nil, false, false, "/invite @relaybot"},
		{"archived", ch(func(c *slackapi.Channel) { c.IsArchived = true }), nil, false, false, "is archived"},
		{"not found", nil, slackapi.SlackErrorResponse{Err: "channel_not_found"}, false, false, "check channelId"},
		{"missing_scope, on a scope line", nil, slackapi.SlackErrorResponse{Err: "missing_scope", Needed: "groups:read"}, true, false, ""},
		{"missing_scope, no scope line says it", nil, slackapi.SlackErrorResponse{Err: "missing_scope", Needed: "im:read"}, false, false, "needed: im:read"},
		{"another code", nil, slackapi.SlackErrorResponse{Err: "team_access_not_granted"}, false, false, "team_access_not_granted"},
		{"no answer", nil, errors.New("connection refused"), false, false, "check the network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := channelLines("C1", "relaybot", tc.ch, tc.err, tc.scopeExplains)
			if tc.says == "" {
				if len(lines) != 0 {
					t.Fatalf("lines %+v, want none", lines)
				}
				return
			}
			if len(lines) != 1 || lines[0].Check != "channel" || lines[0].OK != tc.ok || !strings.Contains(lines[0].Says, tc.says) {
				t.Fatalf("lines %+v, want one channel line, ok=%v, saying %q", lines, tc.ok, tc.says)
			}
		})
	}
}

// Socket Mode's line from each answer apps.connections.open can give.
func TestSocketModeLine(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		connections int
		helloErr    error
		ok          bool
		says        string
	}{
		{"a socket", nil, 1, nil, true, "hands the app a socket; no other"},
		{"a socket beside a daemon's", nil, 2, nil, true, "1 other Socket Mode connection of the app is open"},
		{"a socket beside two", nil, 3, nil, false, "2 other Socket Mode connections of the app (TokenInUse): Slack splits events"},
		{"no hello", nil, 0, errors.New("reading the socket's hello: EOF"), false, "a proxy must let websockets through"},
		{"refused", slackapi.SlackErrorResponse{Err: "invalid_auth"}, 0, nil, false, "refused the app-level token (invalid_auth)"},
		{"no token", slackapi.SlackErrorResponse{Err: "not_authed"}, 0, nil, false, "generate a token with connections:write"},
		{"no connections:write", slackapi.SlackErrorResponse{Err: "missing_scope", Needed: "connections:write"}, 0, nil, false, "lacks connections:write"},
		{"anything else Slack says", slackapi.SlackErrorResponse{Err: "forbidden_team"}, 0, nil, false, "turn on Socket Mode"},
		{"no answer", errors.New("connection refused"), 0, nil, false, "check the network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := socketModeLine(tc.err, tc.connections, tc.helloErr)
			if l.Check != "socket mode" || l.OK != tc.ok || !strings.Contains(l.Says, tc.says) {
				t.Errorf("line %+v, want ok=%v saying %q", l, tc.ok, tc.says)
			}
		})
	}
}

// Without X-OAuth-Scopes the scopes cannot be judged: one line says so,
// instead of a failed line per scope for one cause.
func TestNoScopesHeader(t *testing.T) {
	me := &slackapi.AuthTestResponse{User: "relaybot", Header: http.Header{}}
	ch := &slackapi.Channel{}
	ch.IsMember = true
	lines := channelAndScopeLines("C1", me, ch, nil)
	if doctor.Failed(lines) != 1 || lines[len(lines)-1].Check != "scopes" || !strings.Contains(lines[len(lines)-1].Says, "X-OAuth-Scopes") {
		t.Errorf("lines %+v, want the channel's, then one failed scopes line", lines)
	}
}

// workspaceId, when set, must be the token's workspace.
func TestWorkspaceLine(t *testing.T) {
	me := &slackapi.AuthTestResponse{User: "relaybot", UserID: "U1", Team: "Ops", TeamID: "T1", BotID: "B1"}
	if l := workspaceLine(me, "T1"); !l.OK {
		t.Errorf("same workspace: %+v", l)
	}
	if l := workspaceLine(me, ""); !l.OK {
		t.Errorf("no workspaceId: %+v", l)
	}
	if l := workspaceLine(me, "T2"); l.OK || !strings.Contains(l.Says, "set workspaceId to T1") {
		t.Errorf("another workspace: %+v", l)
	}
	person := *me
	person.BotID = ""
	if l := workspaceLine(&person, "T1"); l.OK || !strings.Contains(l.Says, "not a bot's: put the app's Bot User OAuth Token (xoxb-)") {
		t.Errorf("a user token: %+v", l)
	}
}
