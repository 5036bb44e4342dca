package faketelegram

import "slices"

// reactionEmoji are the emoji ReactionTypeEmoji takes, as the Bot API
// reference lists them.
var reactionEmoji = []string{
	"👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩", "🙏", "👌", "🕊",
	"🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾",
	"💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅",
	"🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
}

// reactionType is a ReactionType as setMessageReaction takes it.
type reactionType struct {
	Type  string `json:"type"`
	Emoji string `json:"emoji"`
}

// setMessageReactionLocked answers setMessageReaction: the bot's
// reactions on a message are replaced by those given (none clears them);
// a bot may set one.
func (s *Server) setMessageReactionLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	var rs []reactionType
	if err := p.object("reaction", &rs); err != nil {
		return badRequest(err.Error())
	}
	m := ch.liveMessage(p.int("message_id", 0))
	if m == nil {
		return badRequest("message to react not found")
	}
	m.ReactRequests++
	if len(rs) > 1 {
		return badRequest("REACTIONS_TOO_MANY")
	}
	var emoji []string
	for _, r := range rs {
		if r.Type != "emoji" || !slices.Contains(reactionEmoji, r.Emoji) {
			return badRequest("REACTION_INVALID")
		}
		emoji = append(emoji, r.Emoji)
	}
	m.Reactions = emoji
	s.core.NotifyLocked()
	return ok(true)
}
