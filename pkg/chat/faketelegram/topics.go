package faketelegram

import (
	"strings"
	"unicode"
)

// maxTopicName is the service's limit on a topic's name, in characters:
// a longer name is cut, not refused.
const maxTopicName = 128

// createForumTopicLocked answers createForumTopic: the topic's creation
// is a service message with the chat's next id, and that id is the
// topic's message_thread_id.
func (s *Server) createForumTopicLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	if !ch.Forum {
		return badRequest("the chat is not a forum")
	}
	if ch.member {
		return badRequest("not enough rights to create a topic")
	}
	name := cleanName(p["name"])
	if name == "" {
		return badRequest("title must be non-empty")
	}
	color := p.int("icon_color", defaultIconColor)
	if color < 0 || color > 0xFFFFFF {
		return badRequest("invalid icon color specified")
	}
	m := s.storeLocked(ch, &Message{From: s.bot, Service: ServiceTopicCreated, TopicName: name})
	m.Thread = m.ID // the creation is the topic's first message
	ch.topics[m.ID] = &topic{name: name}
	s.logf("topic %d created in chat %d", m.ID, ch.ID)
	return ok(map[string]any{"message_thread_id": m.ID, "name": name, "icon_color": color})
}

// cleanName trims a name and cuts it to maxTopicName characters.
func cleanName(name string) string {
	r := []rune(strings.TrimSpace(name))
	if len(r) > maxTopicName {
		r = r[:maxTopicName]
	}
	return strings.TrimRightFunc(string(r), unicode.IsSpace)
}

// closeForumTopicLocked answers closeForumTopic: the closing is a
// service message in the topic, with the chat's next id.
func (s *Server) closeForumTopicLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	if !ch.Forum {
		return badRequest("the chat is not a forum")
	}
	id := p.int("message_thread_id", 0)
	t := ch.liveTopic(id)
	switch {
	case t == nil:
		return badRequest("message thread not found")
	case t.closed:
		return badRequest("TOPIC_NOT_MODIFIED")
	}
	t.closed = true
	s.storeLocked(ch, &Message{From: s.bot, Thread: id, Service: ServiceTopicClosed})
	s.logf("topic %d closed in chat %d", id, ch.ID)
	return ok(true)
}
