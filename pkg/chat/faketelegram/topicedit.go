package faketelegram

// ServiceTopicEdited and ServiceTopicReopened are the service messages of
// editForumTopic and reopenForumTopic: each takes the chat's next id.
const (
	ServiceTopicEdited   = "forum_topic_edited"
	ServiceTopicReopened = "forum_topic_reopened"
)

// editForumTopicLocked answers editForumTopic. The same name again is
// refused "TOPIC_NOT_MODIFIED" (tdlib passes that error on to bots only),
// which makes it a probe that changes nothing: it names the topics that
// exist with a name. A new name is a rename, with a service message.
func (s *Server) editForumTopicLocked(p params) *answer {
	ch, t, id, fail := s.topicLocked(p)
	if fail != nil {
		return fail
	}
	if ch.member && ch.msgs[id].From.ID != s.bot.ID {
		return badRequest("not enough rights to edit the topic")
	}
	name, named := p["name"]
	if !named || name == "" {
		return ok(true) // nothing to change
	}
	if name = cleanName(name); name == "" {
		return badRequest("title must be non-empty")
	}
	if name == t.name {
		return badRequest("TOPIC_NOT_MODIFIED")
	}
	t.name = name
	s.storeLocked(ch, &Message{From: s.bot, Thread: id, Service: ServiceTopicEdited, TopicName: name})
	s.logf("topic %d renamed in chat %d", id, ch.ID)
	return ok(true)
}

// reopenForumTopicLocked answers reopenForumTopic, closeForumTopic's
// converse.
func (s *Server) reopenForumTopicLocked(p params) *answer {
	ch, t, id, fail := s.topicLocked(p)
	if fail != nil {
		return fail
	}
	if !t.closed {
		return badRequest("TOPIC_NOT_MODIFIED")
	}
	t.closed = false
	s.storeLocked(ch, &Message{From: s.bot, Thread: id, Service: ServiceTopicReopened})
	return ok(true)
}

// topicLocked finds the topic a chat_id and message_thread_id name, or
// the service's answer why not: no id at all is "invalid message thread
// identifier specified"; an id that is no live topic TOPIC_ID_INVALID.
func (s *Server) topicLocked(p params) (*chat, *topic, int64, *answer) {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return nil, nil, 0, fail
	}
	if !ch.Forum {
		return nil, nil, 0, badRequest("the chat is not a forum")
	}
	id := p.int("message_thread_id", 0)
	if id <= 0 {
		return nil, nil, 0, badRequest("invalid message thread identifier specified")
	}
	t := ch.liveTopic(id)
	if t == nil {
		return nil, nil, 0, badRequest("TOPIC_ID_INVALID")
	}
	return ch, t, id, nil
}
