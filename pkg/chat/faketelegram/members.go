package faketelegram

import (
	"strconv"
)

// getChatLocked answers getChat: the supergroup as ChatFullInfo shows it.
func (s *Server) getChatLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	c := chatWire(ch)
	c["accent_color_id"], c["max_reaction_count"] = 0, 11
	return ok(c)
}

// getChatMemberLocked answers getChatMember: the bot is an administrator
// that may manage topics and delete messages (unless SetBotAdmin took
// it back), anyone else a member.
func (s *Server) getChatMemberLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	uid := p.int("user_id", 0)
	if uid <= 0 {
		return badRequest("invalid user_id specified")
	}
	if uid != s.bot.ID {
		return ok(map[string]any{"status": "member", "user": User{ID: uid, FirstName: "User " + strconv.FormatInt(uid, 10)}})
	}
	if ch.member {
		return ok(map[string]any{"status": "member", "user": s.bot})
	}
	return ok(map[string]any{
		"status": "administrator", "user": s.bot, "can_be_edited": false, "is_anonymous": false,
		"can_manage_chat": true, "can_delete_messages": true, "can_manage_video_chats": false,
		"can_restrict_members": false, "can_promote_members": false, "can_change_info": false,
		"can_invite_users": true, "can_post_stories": false, "can_edit_stories": false,
		"can_delete_stories": false, "can_pin_messages": true, "can_manage_topics": true,
	})
}

// SetChannelUnknown makes a chat (its id in decimal) answer "chat not
// found" to every method, as a wrong or deleted chat does, or brings it
// back; people can still write in it. The name the other fakes give it.
func (s *Server) SetChannelUnknown(id string, unknown bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch := s.chats[n]; err == nil && ch != nil {
		ch.unknown = unknown
	}
}

// SetBotAdmin makes the bot an administrator of a chat (0: the first)
// that may manage topics, as it is at start, or an ordinary member: a
// member cannot create topics ("not enough rights to create a topic")
// nor post in a closed one (TOPIC_CLOSED), and with privacy mode on
// sees only some messages (SetPrivacy).
func (s *Server) SetBotAdmin(chatID int64, admin bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	ch.member = !admin
	return nil
}

// SetPrivacy turns the bot's privacy mode (BotFather's /setprivacy) on or
// off; it is off at start. getMe shows it as can_read_all_group_messages.
// With it on, in a chat where the bot is no administrator, only
// messages that reply to the bot's, carry a command or mention the bot
// become updates.
func (s *Server) SetPrivacy(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.privacy = on
}

// seesLocked says whether the bot gets an update for a person's message.
func (s *Server) seesLocked(ch *chat, m *Message) bool {
	if !s.privacy || !ch.member {
		return true
	}
	if r := ch.msgs[m.ReplyTo]; m.ReplyTo != 0 && r != nil && r.From.ID == s.bot.ID {
		return true
	}
	for _, e := range m.Entities {
		name := utf16Slice(m.Text, e.Offset, e.Length)
		if e.Type == "bot_command" || (e.Type == "mention" && name == "@"+s.bot.Username) {
			return true
		}
	}
	return false
}
