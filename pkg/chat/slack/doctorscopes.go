package slack

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/doctor"
)

// channelKind is the kind of conversation channelId names: Slack grants
// reading each kind by scopes of its own.
type channelKind int

const (
	kindPublic  channelKind = iota // a public channel: channels:read, channels:history
	kindPrivate                    // a private channel: groups:read, groups:history
	kindIM                         // a direct message: im:read, im:history
	kindMPIM                       // a group direct message: mpim:read, mpim:history
)

// scopePrefix is the kind's part of its read and history scopes.
func (k channelKind) scopePrefix() string {
	return [...]string{"channels", "groups", "im", "mpim"}[k]
}

func (k channelKind) String() string {
	return [...]string{"public channel", "private channel", "direct message", "group direct message"}[k]
}

// kindOf is the kind conversations.info says a conversation is.
func kindOf(ch *slackapi.Channel) channelKind {
	switch {
	case ch.IsIM:
		return kindIM
	case ch.IsMpIM:
		return kindMPIM
	case ch.IsPrivate:
		return kindPrivate
	}
	return kindPublic
}

// scopeNeed is a bot token scope the relay or the inbound side uses, and
// what for.
type scopeNeed struct{ scope, why string }

// requiredScopes are the bot token scopes the relay and the inbound side use
// with a conversation of kind k, in the order doctor reports them. They are
// those of the Web API methods this package calls with the bot token:
//
//	chat.postMessage, chat.update                 chat:write
//	conversations.info                            <kind>:read (channels:, groups:, im:, mpim:)
//	conversations.history, conversations.replies  <kind>:history
//	reactions.add                                 reactions:write
//	files.getUploadURLExternal, completeUpload... files:write
//	files.info, a file's url_private_download     files:read
//	auth.test                                     none
//
// Nothing here deletes a message or lists channels. apps.connections.open
// takes the app-level token and its connections:write: the socket mode
// check. A method added to the relay or the inbound side adds its scope here.
func requiredScopes(k channelKind) []scopeNeed {
	p := k.scopePrefix()
	return []scopeNeed{
		{"chat:write", "to post and edit (chat.postMessage, chat.update)"},
		{p + ":read", "to check the channel at start (conversations.info)"},
		{p + ":history", "to find a post after a crash and read the replies sent while it was down (conversations.history, conversations.replies)"},
		{"reactions:write", "to mark a reply it took with 👀 (reactions.add)"},
		{"files:write", "to post an outbox message's attachments (files.getUploadURLExternal, files.completeUploadExternal)"},
		{"files:read", "to find a posted file after a crash (files.info) and download the files people attach to a reply"},
	}
}

// grantedScopes reads the bot token's scopes from the X-OAuth-Scopes header
// Slack puts on every answer; ok is false when the header is missing.
func grantedScopes(h http.Header) (granted map[string]bool, ok bool) {
	values := h.Values("X-OAuth-Scopes")
	if values == nil {
		return nil, false
	}
	granted = map[string]bool{}
	for _, v := range values {
		for sc := range strings.SplitSeq(v, ",") {
			if sc = strings.TrimSpace(sc); sc != "" {
				granted[sc] = true
			}
		}
	}
	return granted, true
}

// channelKindFor is the kind to judge the scopes for, and whether it is
// known. conversations.info says it when it answers; when it answers
// missing_scope it asked for the read scope of the channel's kind (named as
// needed, or else the one of public and private the token lacks). Unknown,
// the channel is judged as public, the usual kind, and the lines say so.
func channelKindFor(ch *slackapi.Channel, infoErr error, granted map[string]bool) (channelKind, bool) {
	if infoErr == nil && ch != nil {
		return kindOf(ch), true
	}
	var se slackapi.SlackErrorResponse
	if !errors.As(infoErr, &se) || se.Err != "missing_scope" {
		return kindPublic, false
	}
	var lacking []channelKind
	for _, k := range []channelKind{kindPublic, kindPrivate, kindIM, kindMPIM} {
		read := k.scopePrefix() + ":read"
		if se.Needed == read {
			return k, true
		}
		if k <= kindPrivate && !granted[read] {
			lacking = append(lacking, k)
		}
	}
	if len(lacking) == 1 {
		return lacking[0], true
	}
	return kindPublic, false
}

// scopeLines judges the granted scopes against those the relay uses with a
// conversation of kind k, a line each; known says whether k is the
// channel's kind for certain.
func scopeLines(granted map[string]bool, k channelKind, known bool) []doctor.Line {
	var lines []doctor.Line
	for _, n := range requiredScopes(k) {
		check := "scope " + n.scope
		if granted[n.scope] {
			lines = append(lines, doctor.Pass(check, "granted"))
			continue
		}
		fix := fmt.Sprintf("add %s under OAuth & Permissions, Bot Token Scopes, then reinstall the app to the workspace: the bot needs it %s", n.scope, n.why)
		if alt, found := strings.CutPrefix(n.scope, "channels:"); found && !known {
			fix += fmt.Sprintf(" (judged for a public channel; for a private one add groups:%s)", alt)
		}
		lines = append(lines, doctor.Fail(check, fix))
	}
	return lines
}
