package fakeslack

import "fmt"

// InjectBotMessage stores a post by another app's bot (botID, such as
// "B0OTHER01") and sends its message event as Slack does for one: subtype
// bot_message, bot_id, no user and no client_msg_id. threadTS, when set,
// makes it a reply.
func (s *Server) InjectBotMessage(channel, botID, text, threadTS string) (Message, error) {
	if botID == "" {
		return Message{}, fmt.Errorf("fakeslack: a bot message needs a bot id")
	}
	return s.inject(Message{Channel: channel, ThreadTS: threadTS, BotID: botID, SubType: "bot_message", Text: text})
}

// EditInjected edits a human's message, as if its author edited it in
// Slack: the text replaced (the old one kept in Edits) and a
// message_changed event sent to every app.
func (s *Server) EditInjected(channel, ts, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messageLocked(channel, ts)
	switch {
	case m == nil:
		return fmt.Errorf("fakeslack: no message %q in %q", ts, channel)
	case m.BotID != "" || m.User == "":
		return fmt.Errorf("fakeslack: message %s in %s is a bot's, not a human's", ts, channel)
	}
	s.editLocked(m, text, nil)
	s.logf("message %s edited by its author in %s", ts, channel)
	return nil
}

// editLocked replaces a message's text and announces the edit with a
// message_changed event, shaped as Slack's: hidden, a new ts of its own
// (which is also the edit's edited.ts), the message as it now is and as
// it was. also, when set, changes the rest of the message (its blocks).
func (s *Server) editLocked(m *Message, text string, also func(*Message)) {
	prev := *m
	m.Edits = append(m.Edits, m.Text)
	m.Text, m.EditedTS = text, s.nextTSLocked()
	if also != nil {
		also(m)
	}

	now := s.messageObjectLocked(*m)
	now["edited"] = map[string]string{"user": m.User, "ts": m.EditedTS}
	was := s.messageObjectLocked(prev)
	if prev.EditedTS != "" {
		was["edited"] = map[string]string{"user": prev.User, "ts": prev.EditedTS}
	}
	s.fanOutLocked(m.Channel, m.TS, "message_changed", map[string]any{
		"type":             "message",
		"subtype":          "message_changed",
		"hidden":           true,
		"channel":          m.Channel,
		"channel_type":     channelType(m.Channel),
		"ts":               m.EditedTS,
		"event_ts":         m.EditedTS,
		"message":          now,
		"previous_message": was,
	})
	s.notifyLocked()
}
