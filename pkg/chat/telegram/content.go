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
	// file: a document, text its caption (a file part; captionOf).
	file bool
}

// contentOf renders a part: a pure function of it, so a post and a later
// probe send the same. Its invariant: a text_mention entity, the one
// way the bot pings anyone, is made only for the ids of p.Ping, which
// the relay sets on an ask's last part with pingOnAsk and nowhere else;
// agent text never pings (safeText).
func contentOf(p relay.Part) content {
	if p.Upload != nil {
		return content{text: captionOf(p.Upload), file: true}
	}
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
// notifies the user. Offsets and lengths count UTF-16 code units. The
// relay leaves room for the line (32 characters a user); a mention that
// would take the text past PartLimit all the same is left out, as is an
// id that is not a number.
func withMentions(text string, ids []string) (string, []models.MessageEntity) {
	var es []models.MessageEntity
	size, at := utf8.RuneCountInString(text), utf16Len(text)
	for _, id := range ids {
		user, err := strconv.ParseInt(id, 10, 64)
		if err != nil || user <= 0 {
			continue
		}
		sep := ", "
		if len(es) == 0 {
			sep = pingLead
		}
		name := strconv.FormatInt(user, 10)
		if size+len(sep)+len(name) > PartLimit {
			break
		}
		text += sep + name
		size += len(sep) + len(name)
		at += len(sep)
		es = append(es, models.MessageEntity{Type: models.MessageEntityTypeTextMention, Offset: at, Length: len(name), User: &models.User{ID: user}})
		at += len(name)
	}
	return text, es
}

// utf16Len is a text's length as the service counts entity offsets.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
