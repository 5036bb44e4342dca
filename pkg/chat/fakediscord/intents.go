package fakediscord

import (
	"regexp"
	"slices"
)

// Gateway intents the fake looks at, as Discord numbers them.
const (
	intentGuilds                = 1 << 0
	intentGuildMessages         = 1 << 9
	intentGuildMessageReactions = 1 << 10
	intentMessageContent        = 1 << 15
)

// closeDisallowedIntents is Discord's close code for a privileged intent
// the application has not been approved (or switched on) for.
const closeDisallowedIntents = 4014

// SetMessageContentIntent switches the privileged MESSAGE_CONTENT intent on
// or off for a bot token's application, as the developer portal does;
// every token has it at the start. While it is off an IDENTIFY that asks
// for MESSAGE_CONTENT is closed with 4014, and REST hides the content of
// messages the bot neither wrote nor is mentioned in. Live sessions keep
// what they identified with, as on Discord, until they identify again.
func (s *Server) SetMessageContentIntent(token string, allowed bool) {
	s.core.Toggle(s.faults.noContent, token, !allowed)
}

// intentsAllowedLocked says whether a token may identify with these intents.
func (s *Server) intentsAllowedLocked(token string, intents int) bool {
	return intents&intentMessageContent == 0 || !s.faults.noContent[token]
}

// eventIntent is the intent a dispatch needs; 0 for those every session gets.
// Every channel is a guild channel here (no DMs), so messages need
// GUILD_MESSAGES and reactions GUILD_MESSAGE_REACTIONS.
func eventIntent(event string) int {
	switch event {
	case "GUILD_CREATE", "THREAD_CREATE", "THREAD_UPDATE":
		return intentGuilds
	case "MESSAGE_CREATE", "MESSAGE_UPDATE":
		return intentGuildMessages
	case "MESSAGE_REACTION_ADD":
		return intentGuildMessageReactions
	}
	return 0
}

// wants says whether a session identified for an event.
func (ss *session) wants(event string) bool {
	need := eventIntent(event)
	return ss.intents&need == need
}

// viewer is who a message payload is built for: a gateway session or a
// REST caller. Discord's content rule depends on it.
type viewer struct {
	userID  string // the bot's user ID
	content bool   // has MESSAGE_CONTENT (the session's intent, or the app's approval on REST)
	gateway bool   // a dispatch: only those carry guild_id, REST messages do not
}

func sessionViewer(ss *session) viewer {
	return viewer{userID: BotUserID(ss.token), content: ss.intents&intentMessageContent != 0, gateway: true}
}

func (s *Server) restViewerLocked(token string) viewer {
	return viewer{userID: BotUserID(token), content: !s.faults.noContent[token]}
}

// seesContent is Discord's rule for MESSAGE_CONTENT: without it content,
// embeds, attachments and components are empty, except in the app's own
// messages and in messages that mention it.
func (v viewer) seesContent(m Message) bool {
	return v.content || m.AuthorID == v.userID || slices.Contains(mentionedIDs(m.Content), v.userID)
}

var mentionPattern = regexp.MustCompile(`<@!?([0-9]+)>`)

// mentionedIDs are the user IDs mentioned in content, in order, once each.
func mentionedIDs(content string) []string {
	var ids []string
	for _, sub := range mentionPattern.FindAllStringSubmatch(content, -1) {
		if !slices.Contains(ids, sub[1]) {
			ids = append(ids, sub[1])
		}
	}
	return ids
}

// appFlagsLocked are the application flags READY carries: Discord sets
// GATEWAY_MESSAGE_CONTENT (1<<19) for an app approved for the intent.
func (s *Server) appFlagsLocked(token string) int {
	if s.faults.noContent[token] {
		return 0
	}
	return 1 << 19
}
