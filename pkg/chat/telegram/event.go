package telegram

import (
	"strconv"
	"time"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

// eventOf is an update as the inbound side reads it; ok is false for an
// update that carries no message of the configured chat (its update id
// is confirmed all the same). A message's place is its thread: the forum
// topic it is in, or, without topics, the root of its reply chain, which
// the service gives as message_thread_id in a supergroup either way.
func eventOf(u models.Update, chatID string, self int64) (inbound.Event, bool) {
	m, kind := u.Message, inbound.Plain
	if m == nil {
		m, kind = u.EditedMessage, inbound.Edit
	}
	if m == nil || strconv.FormatInt(m.Chat.ID, 10) != chatID {
		return inbound.Event{}, false
	}
	text := m.Text
	if text == "" {
		text = m.Caption
	}
	if kind == inbound.Plain && text == "" {
		kind = inbound.Other // a service message, a sticker, a topic created or closed
	}
	ev := inbound.Event{ID: strconv.Itoa(m.ID), Kind: kind, Text: text, Time: time.Unix(int64(m.Date), 0)}
	if m.MessageThreadID != 0 {
		ev.Place = strconv.Itoa(m.MessageThreadID)
	}
	if m.From != nil {
		ev.User = strconv.FormatInt(m.From.ID, 10)
		ev.Bot = m.From.IsBot
		ev.Self = m.From.ID == self
	}
	return ev, true
}
