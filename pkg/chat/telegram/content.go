package telegram

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/relay"
)

// pingLead starts the line that mentions an ask's users.
const pingLead = "\n\nAsking: "

// content is a part as the service is sent it, by a post and by the id
// probe alike: its text made safe, the mentions of an ask with pingOnAsk
// and an ask's buttons. The probe's editMessageText must carry all three
// as posted, so that the message it finds is "not modified".
type content struct {
	text     string
	entities []models.MessageEntity
	keyboard *models.InlineKeyboardMarkup // nil: none
}

// contentOf renders a part: a pure function of it, so a post and a later
// probe send the same. Its invariant: a text_mention entity, the one
// way the bot pings anyone, is made only for the ids of p.Ping, which
// the relay sets on an ask's last part with pingOnAsk and nowhere else;
// agent text never pings (safeText).
func contentOf(p relay.Part) content {
	c := content{text: safeText(p.Text), keyboard: keyboardOf(p.Choices)}
	if len(p.Ping) > 0 {
		c.text, c.entities = withMentions(c.text, p.Ping)
	}
	return c
}

// keyboardOf is an ask's buttons as an inline keyboard: one row, a
// button per choice, its callback_data the choice's Data (at most 58
// bytes, within the service's 64); the first is styled as the main
// action. nil without choices.
func keyboardOf(choices []relay.Choice) *models.InlineKeyboardMarkup {
	if len(choices) == 0 {
		return nil
	}
	row := make([]models.InlineKeyboardButton, len(choices))
	for i, c := range choices {
		row[i] = models.InlineKeyboardButton{Text: c.Label, CallbackData: c.Data}
	}
	row[0].Style = "primary"
	return &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{row}}
}

// withMentions appends a line naming each user id, each name a
// text_mention of that user: the service's explicit mention by id, which
// notifies the user. Offsets and lengths count UTF-16 code units. When
// the line would take the text past PartLimit, the mentions cover the
// text's first characters instead (one each), so a part that fits still
// fits. An id that is not a number mentions no one.
func withMentions(text string, ids []string) (string, []models.MessageEntity) {
	var users []int64
	for _, id := range ids {
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 {
			users = append(users, n)
		}
	}
	if len(users) == 0 {
		return text, nil
	}
	line := pingLead
	var spans [][2]int // offset, length of each name in the whole text
	at := utf16Len(text) + utf16Len(pingLead)
	for i, u := range users {
		if i > 0 {
			line += ", "
			at += 2
		}
		name := strconv.FormatInt(u, 10)
		spans = append(spans, [2]int{at, len(name)})
		line += name
		at += len(name)
	}
	if utf8.RuneCountInString(text)+utf8.RuneCountInString(line) > PartLimit {
		spans = spans[:0]
		at = 0
		for _, r := range text {
			if len(spans) == len(users) {
				break
			}
			n := utf16.RuneLen(r)
			spans = append(spans, [2]int{at, n})
			at += n
		}
		line = ""
	}
	es := make([]models.MessageEntity, len(spans))
	for i, s := range spans {
		es[i] = models.MessageEntity{Type: models.MessageEntityTypeTextMention, Offset: s[0], Length: s[1], User: &models.User{ID: users[i]}}
	}
	return text + line, es
}

// utf16Len is a text's length as the service counts entity offsets.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
