package faketelegram

import (
	"fmt"
	"strconv"
	"time"
)

// chat is a supergroup's state. Guarded by Server.mu.
type chat struct {
	Chat
	last   int64 // the newest message's id: ids are sequential per chat
	msgs   map[int64]*Message
	topics map[int64]*topic // forum topics by id (their creation message's)
	budget budget
	// unknown: the service answers "chat not found" (SetChannelUnknown);
	// kicked: the bot was removed (SetBotKicked); member: the bot is an
	// ordinary member, not an admin with the right to manage topics
	// (SetBotAdmin).
	unknown, kicked, member bool
}

// topic is a forum topic's state.
type topic struct {
	name            string
	closed, deleted bool
}

// minSupergroupID bounds the ids of supergroups: -100 followed by the
// supergroup's own number.
const minSupergroupID = -1000000000000

// checkChats refuses what the service has no such chats for.
func checkChats(chats []Chat) error {
	seen := map[int64]bool{}
	for _, c := range chats {
		if c.ID >= minSupergroupID {
			return fmt.Errorf("faketelegram: chat %d is not a supergroup id (-100...)", c.ID)
		}
		if seen[c.ID] {
			return fmt.Errorf("faketelegram: chat %d listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	return nil
}

// addChat adds a chat checkChats passed, with its creation message.
func (s *Server) addChat(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Title == "" {
		c.Title = DefaultChatTitle
	}
	if c.LastMessageID <= 0 {
		c.LastMessageID = 1
	}
	ch := &chat{Chat: c, msgs: map[int64]*Message{}, topics: map[int64]*topic{}, budget: budget{limit: s.opts.Limit}}
	s.chats[c.ID] = ch
	s.order = append(s.order, c.ID)
	// The chat's creation: a message the ids above it follow, which
	// nobody can edit (the probe meets it as "can't be edited").
	ch.last = c.LastMessageID - 1
	s.storeLocked(ch, &Message{From: User{ID: 1, FirstName: "Founder"}, Service: serviceChatCreated})
}

// storeLocked gives m the chat's next id and keeps it.
func (s *Server) storeLocked(ch *chat, m *Message) *Message {
	ch.last++
	m.Chat, m.ID = ch.ID, ch.last
	if m.Date.IsZero() {
		m.Date = time.Now()
	}
	ch.msgs[m.ID] = m
	s.messages = append(s.messages, m)
	s.core.NotifyLocked()
	return m
}

// chatLocked finds the chat a chat_id parameter names, or the service's
// answer why not: unknown, or the bot was kicked from it.
func (s *Server) chatLocked(param string) (*chat, *answer) {
	if param == "" {
		return nil, badRequest("chat_id is empty")
	}
	id, err := strconv.ParseInt(param, 10, 64)
	ch := s.chats[id]
	if err != nil || ch == nil || ch.unknown {
		return nil, badRequest("chat not found")
	}
	if ch.kicked {
		return nil, &answer{status: 403, body: failBody(403, "Forbidden: bot was kicked from the supergroup chat")}
	}
	return ch, nil
}

// defaultChatLocked resolves 0 to the first chat.
func (s *Server) defaultChatLocked(id int64) (*chat, error) {
	if id == 0 {
		id = s.order[0]
	}
	ch := s.chats[id]
	if ch == nil {
		return nil, fmt.Errorf("faketelegram: no chat %d", id)
	}
	return ch, nil
}

// liveMessage is a message that exists now: not deleted.
func (ch *chat) liveMessage(id int64) *Message {
	m := ch.msgs[id]
	if m == nil || m.Deleted {
		return nil
	}
	return m
}

// liveTopic is an open or closed forum topic that was not deleted.
func (ch *chat) liveTopic(id int64) *topic {
	t := ch.topics[id]
	if t == nil || t.deleted {
		return nil
	}
	return t
}
