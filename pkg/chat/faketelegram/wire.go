package faketelegram

import "encoding/json"

// defaultIconColor is the first of the topic icon colors the service offers.
const defaultIconColor = 7322096

// wireLocked is a message as the Bot API shows it. withReply adds
// reply_to_message, one level deep as the service nests it: the message
// replied to, or, for a message in a topic or reply thread that replies
// to nothing else, the thread's first message (a topic's creation).
func (s *Server) wireLocked(m *Message, withReply bool) map[string]any {
	ch := s.chats[m.Chat]
	o := map[string]any{"message_id": m.ID, "from": m.From, "chat": chatWire(ch), "date": m.Date.Unix()}
	if !m.EditDate.IsZero() {
		o["edit_date"] = m.EditDate.Unix()
	}
	if m.Thread != 0 {
		o["message_thread_id"] = m.Thread
		if ch.Forum {
			o["is_topic_message"] = true
		}
	}
	if withReply {
		if r := replyTarget(ch, m); r != nil {
			o["reply_to_message"] = s.wireLocked(r, false)
		}
	}
	switch {
	case m.Document != nil:
		o["document"] = m.Document
		if m.Caption != "" {
			o["caption"] = m.Caption
		}
		if len(m.CaptionEntities) > 0 {
			o["caption_entities"] = m.CaptionEntities
		}
	case m.Service == "":
		o["text"] = m.Text
		if len(m.Entities) > 0 {
			o["entities"] = m.Entities
		}
	case m.Service == ServiceTopicCreated:
		o[ServiceTopicCreated] = map[string]any{"name": m.TopicName, "icon_color": defaultIconColor}
	case m.Service == ServiceTopicEdited:
		o[ServiceTopicEdited] = map[string]any{"name": m.TopicName}
	case m.Service == ServiceTopicClosed, m.Service == ServiceTopicReopened:
		o[m.Service] = map[string]any{}
	case m.Service == serviceChatCreated:
		o[serviceChatCreated] = true
	}
	if json.Valid([]byte(m.LinkPreview)) {
		o["link_preview_options"] = json.RawMessage(m.LinkPreview)
	}
	if m.Keyboard != nil {
		o["reply_markup"] = map[string]any{"inline_keyboard": m.Keyboard}
	}
	return o
}

// replyTarget is the message m shows as replied to, nil for none (or
// one deleted since).
func replyTarget(ch *chat, m *Message) *Message {
	id := m.ReplyTo
	if id == 0 && m.Thread != 0 && m.Thread < m.ID {
		id = m.Thread
	}
	if id == 0 {
		return nil
	}
	return ch.liveMessage(id)
}

func chatWire(ch *chat) map[string]any {
	c := map[string]any{"id": ch.ID, "title": ch.Title, "type": "supergroup"}
	if ch.Forum {
		c["is_forum"] = true
	}
	return c
}
