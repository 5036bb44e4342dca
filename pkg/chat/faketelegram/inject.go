package faketelegram

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Inbound is a message a person writes in a chat (InjectMessage).
type Inbound struct {
	Chat int64 // 0: the first chat
	From User  // the author; From.ID is required
	Text string
	// Thread is the forum topic to write in; 0 is the General topic.
	// Ignored in a chat without topics, as the service ignores it.
	Thread int64
	// ReplyTo is the message replied to; 0 for none. A reply without a
	// Thread lands in the topic of the message replied to.
	ReplyTo int64
	// File, when set, is sent as a document: Text is then its caption,
	// which may be empty.
	File *File
}

// File is a file a person sends (Inbound.File).
type File struct {
	Name    string
	Content []byte
}

// InjectMessage makes a person write a message, with the chat's next id,
// and queues its "message" update for getUpdates (not for another bot's
// message, From.IsBot: the service never shows a bot another bot's
// messages). It returns the message as stored.
func (s *Server) InjectMessage(in Inbound) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(in.Chat)
	if err != nil {
		return Message{}, err
	}
	text := strings.TrimFunc(in.Text, unicode.IsSpace)
	if in.From.ID == 0 || text == "" && in.File == nil {
		return Message{}, errors.New("faketelegram: an inbound message needs From.ID and a text or a file")
	}
	if in.File != nil && len(in.File.Content) == 0 {
		return Message{}, errors.New("faketelegram: an inbound file needs content")
	}
	thread := int64(0)
	if ch.Forum && in.Thread != 0 {
		if ch.liveTopic(in.Thread) == nil {
			return Message{}, fmt.Errorf("faketelegram: no topic %d in chat %d", in.Thread, ch.ID)
		}
		thread = in.Thread
	}
	if in.ReplyTo != 0 {
		target := ch.liveMessage(in.ReplyTo)
		if target == nil {
			return Message{}, fmt.Errorf("faketelegram: no message %d to reply to in chat %d", in.ReplyTo, ch.ID)
		}
		thread = threadOfReply(ch, thread, target)
	}
	m := &Message{From: in.From, Thread: thread, ReplyTo: in.ReplyTo, Text: text, Entities: findEntities(text)}
	if in.File != nil {
		d := s.storeFileLocked(in.File.Name, in.File.Content)
		m.Document, m.Caption, m.CaptionEntities, m.Text, m.Entities = &d, m.Text, m.Entities, "", nil
	}
	m = s.storeLocked(ch, m)
	if !in.From.IsBot && s.seesLocked(ch, m) { // bots never see other bots' messages
		s.queueLocked(Update{Kind: KindMessage, Chat: ch.ID, MessageID: m.ID}, s.wireLocked(m, true))
	}
	s.logf("user %d wrote message %d in chat %d (thread %d)", in.From.ID, m.ID, ch.ID, m.Thread)
	return m.copy(), nil
}

// InjectEdit makes the author of a person's message edit it, and queues
// its "edited_message" update.
func (s *Server) InjectEdit(chatID, messageID int64, text string) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.peopleMessageLocked(chatID, messageID)
	if err != nil {
		return Message{}, err
	}
	m.Edits = append(m.Edits, m.Text)
	m.Text = strings.TrimFunc(text, unicode.IsSpace)
	m.Entities, m.EditDate = findEntities(m.Text), time.Now()
	s.queueLocked(Update{Kind: KindEditedMessage, Chat: m.Chat, MessageID: m.ID}, s.wireLocked(m, true))
	return m.copy(), nil
}

// InjectReaction makes a person react to a message with an emoji and
// queues its "message_reaction" update, which the service sends only to
// a bot whose allowed_updates lists it.
func (s *Server) InjectReaction(chatID, messageID int64, user User, emoji string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	m := ch.liveMessage(messageID)
	if m == nil {
		return fmt.Errorf("faketelegram: no message %d in chat %d", messageID, ch.ID)
	}
	if !s.updates.allows(KindReaction) {
		return nil
	}
	s.queueLocked(Update{Kind: KindReaction, Chat: ch.ID, MessageID: m.ID}, map[string]any{
		"chat": chatWire(ch), "message_id": m.ID, "user": user, "date": time.Now().Unix(),
		"old_reaction": []any{}, "new_reaction": []reactionType{{Type: "emoji", Emoji: emoji}},
	})
	return nil
}

// DeleteMessage deletes a message, as its author or an admin would: it
// can no longer be edited ("message to edit not found"), replied to or
// reacted to. Its id is not given again.
func (s *Server) DeleteMessage(chatID, messageID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	m := ch.liveMessage(messageID)
	if m == nil {
		return fmt.Errorf("faketelegram: no message %d in chat %d", messageID, ch.ID)
	}
	m.Deleted = true
	s.core.NotifyLocked()
	return nil
}

// DeleteTopic deletes a forum topic with every message in it: sending to
// it answers "message thread not found".
func (s *Server) DeleteTopic(chatID, thread int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return err
	}
	t := ch.liveTopic(thread)
	if t == nil {
		return fmt.Errorf("faketelegram: no topic %d in chat %d", thread, ch.ID)
	}
	t.deleted = true
	for _, m := range ch.msgs {
		if m.Thread == thread {
			m.Deleted = true
		}
	}
	s.core.NotifyLocked()
	return nil
}

// peopleMessageLocked finds a live message a person (not the bot) wrote.
func (s *Server) peopleMessageLocked(chatID, messageID int64) (*Message, error) {
	ch, err := s.defaultChatLocked(chatID)
	if err != nil {
		return nil, err
	}
	m := ch.liveMessage(messageID)
	if m == nil || m.Service != "" || m.From.ID == s.bot.ID {
		return nil, fmt.Errorf("faketelegram: no person's message %d in chat %d", messageID, ch.ID)
	}
	return m, nil
}
