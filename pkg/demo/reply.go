package demo

import (
	"context"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
)

// The demo's users. Each bot's spec authorizes AuthorizedUser; OtherUser
// is someone else in the same channel, whose replies are ignored.
const (
	AuthorizedDiscordUser = "100000000000000030"
	OtherDiscordUser      = "100000000000000031"
	AuthorizedSlackUser   = "U0DEMOUSER"
	OtherSlackUser        = "U0DEMOOTHER"
)

// ReplySession is the session the demo's users reply in: the script's
// first, open the longest, so the replies land before it closes.
const ReplySession = "build-42"

// Reply texts, as the inbox holds them.
const (
	AuthorizedReply = "Looks good; also retry on a 503, please"
	OtherReply      = "I am not on the list, so this is ignored"
)

// Reply waits, on the fake's change notifications, until the relay has
// posted in ReplySession's thread (so the thread is the relay's, and the
// session open), then has the authorized user and the other one reply
// there.
func (e *Env) Reply(ctx context.Context, name string) error {
	b, err := e.bot(name)
	if err != nil {
		return err
	}
	return b.reply(ctx)
}

// discordThread is the thread of ReplySession once the bot has posted in
// it, else "".
func discordThread(s fakediscord.Snapshot) string {
	byID := make(map[string]string, len(s.Messages))
	for _, m := range s.Messages {
		byID[m.ID] = m.Content
	}
	for _, m := range s.Messages {
		// A thread started from a message shares that message's ID.
		if m.ParentID != "" && m.Bot && sessionOf(byID[m.ChannelID]) == ReplySession {
			return m.ChannelID
		}
	}
	return ""
}

// slackThread is the root ts of ReplySession once the bot has replied
// under it, else "".
func slackThread(s fakeslack.Snapshot) string {
	roots := map[string]string{}
	for _, m := range s.Messages {
		if m.ThreadTS == "" {
			roots[m.TS] = m.Text
		}
	}
	for _, m := range s.Messages {
		if m.Channel == slackChannel && m.ThreadTS != "" && m.BotID != "" && sessionOf(roots[m.ThreadTS]) == ReplySession {
			return m.ThreadTS
		}
	}
	return ""
}
