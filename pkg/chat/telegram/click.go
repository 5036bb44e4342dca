package telegram

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

// clickOf is a callback query as the inbound side decides it; ours is
// false for one it cannot be about (a button of another chat, or of an
// inline message): such a click is answered as unknown without asking.
// Its place is the message's thread, as a reply's Event.Place is (the
// forum topic, or without topics the root of the reply chain); a message
// the service no longer shows (inaccessible) has none. The Bot API gives
// no time for a click: it is the time the update arrived.
func clickOf(q *models.CallbackQuery, chatID string, now time.Time) (c inbound.Click, ours bool) {
	var chat int64
	var id int
	c = inbound.Click{ID: q.ID, User: strconv.FormatInt(q.From.ID, 10), Name: q.From.Username, Data: q.Data, Time: now}
	if c.Name == "" {
		c.Name = q.From.FirstName
	}
	switch m := q.Message; {
	case m.Message != nil:
		chat, id = m.Message.Chat.ID, m.Message.ID
		if m.Message.MessageThreadID != 0 {
			c.Place = strconv.Itoa(m.Message.MessageThreadID)
		}
	case m.InaccessibleMessage != nil:
		chat, id = m.InaccessibleMessage.Chat.ID, m.InaccessibleMessage.MessageID
	default:
		return c, false
	}
	c.Message = strconv.Itoa(id)
	return c, q.ID != "" && q.From.ID != 0 && id > 0 && strconv.FormatInt(chat, 10) == chatID
}

// maxAnswer is answerCallbackQuery's limit on its text, in characters.
const maxAnswer = 200

// clickAnswer is how the clicker is answered for a verdict
// (answerCallbackQuery's text and show_alert): the verdict's own wording,
// privately, within the service's 200 characters; a refusal as an alert,
// which the clicker has to dismiss.
func clickAnswer(v inbound.Verdict) (text string, alert bool) {
	return clip(v.Answer(), maxAnswer), v.Kind == inbound.Refused
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
