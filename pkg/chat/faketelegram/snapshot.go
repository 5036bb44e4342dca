package faketelegram

import (
	"slices"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Snapshot is a copy of the fake's observable state.
type Snapshot struct {
	// Messages are every chat's messages, the chats' creation ones and
	// deleted ones included, in creation order.
	Messages []Message
	// Topics are every chat's forum topics, in creation order.
	Topics []Topic
	// Updates are every update queued for the bot, in order.
	Updates []Update
	// Polls counts the getUpdates requests in flight: MaxLive above 1
	// means two consumers polled at once, which one daemon must never do.
	Polls fakeserver.Sessions
	// Conflicts counts the 409s getUpdates answered; DeleteWebhook the
	// deleteWebhook calls.
	Conflicts, DeleteWebhook int
	// Webhook is the webhook set, "" for none.
	Webhook string
	// CallbackQueries are every click (Click), in order, with the bot's
	// answers.
	CallbackQueries []CallbackQuery
	// FileGets counts the getFile calls answered with a path, Downloads
	// the files served from /file/bot<token>/.
	FileGets, Downloads int
	// Observed has the 429s answered (RateLimited), the sendMessage calls
	// received (Posts) and held now (Held), and the bot's posts by chat,
	// thread and text (Relayed), those stored twice (Duplicates).
	fakeserver.Observed
}

func (s *Server) snapshotLocked() Snapshot {
	sn := Snapshot{
		Polls: s.polls, Conflicts: s.counts.conflicts, DeleteWebhook: s.counts.deleteWebhook,
		Webhook: s.webhook, Observed: s.core.ObservedLocked(), FileGets: s.fileGets, Downloads: s.downloads,
	}
	for _, m := range s.messages {
		sn.Messages = append(sn.Messages, m.copy())
		if m.Service == ServiceTopicCreated {
			t := s.chats[m.Chat].topics[m.ID]
			sn.Topics = append(sn.Topics, Topic{Chat: m.Chat, ID: m.ID, Name: t.name, Closed: t.closed, Deleted: t.deleted})
		}
	}
	for _, u := range s.updates.all {
		sn.Updates = append(sn.Updates, u.Update)
	}
	for _, q := range s.queries {
		sn.CallbackQueries = append(sn.CallbackQueries, *q)
	}
	return sn
}

func (m *Message) copy() Message {
	c := *m
	c.Entities = slices.Clone(m.Entities)
	c.CaptionEntities = slices.Clone(m.CaptionEntities)
	if m.Document != nil {
		d := *m.Document
		c.Document = &d
	}
	c.Edits = slices.Clone(m.Edits)
	c.Reactions = slices.Clone(m.Reactions)
	c.Keyboard, c.SentKeyboard = m.Keyboard.clone(), m.SentKeyboard.clone()
	return c
}

// Posted returns the bot's live messages, text or document, in a chat's
// thread (a forum topic, or 0 for those outside any), oldest first.
func (sn Snapshot) Posted(chatID, thread int64) []Message {
	return slices.DeleteFunc(slices.Clone(sn.Messages), func(m Message) bool {
		return m.Chat != chatID || m.Thread != thread || m.Deleted || m.Service != "" || !m.From.IsBot
	})
}

// Texts returns the texts of the text messages of Posted(chatID, thread).
func (sn Snapshot) Texts(chatID, thread int64) []string {
	var out []string
	for _, m := range sn.Posted(chatID, thread) {
		if m.Document == nil {
			out = append(out, m.Text)
		}
	}
	return out
}

// Documents returns the document messages of Posted(chatID, thread).
func (sn Snapshot) Documents(chatID, thread int64) []Message {
	return slices.DeleteFunc(sn.Posted(chatID, thread), func(m Message) bool { return m.Document == nil })
}

// Message returns a chat's message by id.
func (sn Snapshot) Message(chatID, id int64) (Message, bool) {
	i := slices.IndexFunc(sn.Messages, func(m Message) bool { return m.Chat == chatID && m.ID == id })
	if i < 0 {
		return Message{}, false
	}
	return sn.Messages[i], true
}

// Query returns a callback query by id.
func (sn Snapshot) Query(id string) (CallbackQuery, bool) {
	i := slices.IndexFunc(sn.CallbackQueries, func(q CallbackQuery) bool { return q.ID == id })
	if i < 0 {
		return CallbackQuery{}, false
	}
	return sn.CallbackQueries[i], true
}

// Topic is a forum topic as the fake keeps it.
type Topic struct {
	Chat int64
	ID   int64 // its message_thread_id: its creation message's id
	Name string
	// Closed by closeForumTopic; Deleted by DeleteTopic.
	Closed, Deleted bool
}

// TopicsIn returns a chat's topics, oldest first.
func (sn Snapshot) TopicsIn(chatID int64) []Topic {
	return slices.DeleteFunc(slices.Clone(sn.Topics), func(t Topic) bool { return t.Chat != chatID })
}

// Pings returns the bot's messages that notify someone (a mention or
// text_mention entity): agent text must never produce one.
func (sn Snapshot) Pings() []Message {
	return slices.DeleteFunc(slices.Clone(sn.Messages), func(m Message) bool { return !m.From.IsBot || !m.Pings() })
}
