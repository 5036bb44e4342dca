package faketelegram

import "fmt"

// replyParameters is sendMessage's reply_parameters (chat_id, quote and
// the rest are not emulated).
type replyParameters struct {
	MessageID                int64 `json:"message_id"`
	AllowSendingWithoutReply bool  `json:"allow_sending_without_reply"`
}

// sendMessageLocked answers sendMessage: the bot's text message, with
// the chat's next id.
func (s *Server) sendMessageLocked(p params) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	t, fail := readText(p)
	if fail != nil {
		return fail
	}
	keyboard, fail := readKeyboard(p["reply_markup"])
	if fail != nil {
		return fail
	}
	thread, replyTo, fail := placeLocked(ch, p)
	if fail != nil {
		return fail
	}
	m := s.storeLocked(ch, &Message{
		From: s.bot, Thread: thread, ReplyTo: replyTo, Text: t.text, Entities: t.entities, ParseMode: t.parse,
		LinkPreview: p["link_preview_options"], NoWebPreview: p["disable_web_page_preview"], Keyboard: keyboard, SentKeyboard: keyboard,
	})
	s.core.StoredLocked(relayKey(m))
	s.logf("message %d posted in chat %d (thread %d)", m.ID, ch.ID, m.Thread)
	return ok(s.wireLocked(m, true))
}

// placeLocked is where a bot's new message goes, as sendMessage and
// sendDocument read it: its thread and the message it replies to, or
// the service's refusal.
func placeLocked(ch *chat, p params) (thread, replyTo int64, fail *answer) {
	reply := replyParameters{MessageID: p.int("reply_to_message_id", 0), AllowSendingWithoutReply: p.bool("allow_sending_without_reply")}
	if err := p.object("reply_parameters", &reply); err != nil {
		return 0, 0, badRequest(err.Error())
	}
	thread, fail = threadLocked(ch, p.int("message_thread_id", 0))
	if fail != nil {
		return 0, 0, fail
	}
	if reply.MessageID != 0 {
		target := ch.liveMessage(reply.MessageID)
		switch {
		case target != nil:
			replyTo = target.ID
			thread = threadOfReply(ch, thread, target)
		case !reply.AllowSendingWithoutReply:
			return 0, 0, badRequest("message to be replied not found")
		}
	}
	if t := ch.topics[thread]; ch.Forum && t != nil && t.closed && ch.member {
		return 0, 0, badRequest("TOPIC_CLOSED")
	}
	return thread, replyTo, nil
}

// threadLocked checks a message_thread_id as the service does: in a
// forum it names a live topic (the General topic, 1, is not one to send
// to); without topics it is ignored.
func threadLocked(ch *chat, id int64) (int64, *answer) {
	if id == 0 || !ch.Forum {
		return 0, nil
	}
	if ch.liveTopic(id) == nil {
		return 0, badRequest("message thread not found")
	}
	return id, nil
}

// threadOfReply is the thread a reply lands in: in a forum the topic of
// the message replied to when none was named; without topics the root
// of the reply chain.
func threadOfReply(ch *chat, named int64, target *Message) int64 {
	if ch.Forum {
		if named == 0 {
			return target.Thread
		}
		return named
	}
	if target.Thread != 0 {
		return target.Thread
	}
	return target.ID
}

// relayKey is what the oracle counts a bot's post by: its chat, thread
// and text, or a document's caption and content. A test gives each
// relayed message a text (a file a name or content) of its own, so a
// key stored twice is a message posted twice.
func relayKey(m *Message) string {
	if d := m.Document; d != nil {
		return fmt.Sprintf("%d/%d/file:%s/%s/%s", m.Chat, m.Thread, m.Caption, d.FileName, d.Sum)
	}
	return fmt.Sprintf("%d/%d/%s", m.Chat, m.Thread, m.Text)
}
