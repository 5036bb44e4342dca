package demo

import (
	"context"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// The demo's users. Each bot's spec authorizes AuthorizedUser; OtherUser
// is someone else in the same channel, whose replies are ignored.
const (
	AuthorizedDiscordUser = "100000000000000030"
	OtherDiscordUser      = "100000000000000031"
	AuthorizedSlackUser   = "U0DEMOUSER"
	OtherSlackUser        = "U0DEMOOTHER"
)

// The demo's Telegram users, with their names (Telegram ids are numbers).
var (
	AuthorizedTelegramUser = faketelegram.User{ID: 100000030, FirstName: "Ada"}
	OtherTelegramUser      = faketelegram.User{ID: 100000031, FirstName: "Bob"}
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

// telegramTopic is the forum topic of ReplySession once the bot has
// posted in it, else 0. A topic is named from its session's title or id;
// the session's root line in General, posted just before, names the
// session.
func telegramTopic(s faketelegram.Snapshot) int64 {
	open := false // the last root the bot posted was ReplySession's
	topic := int64(0)
	for _, m := range s.Messages {
		switch {
		case !m.From.IsBot:
		case m.Service == "" && m.Thread == 0:
			open = sessionOf(m.Text) == ReplySession
		case m.Service == faketelegram.ServiceTopicCreated && open && topic == 0:
			topic = m.ID
		case m.Service == "" && topic != 0 && m.Thread == topic:
			return topic
		}
	}
	return 0
}
