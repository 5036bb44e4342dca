package faketelegram_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

const notModified = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

func approveDeny() *models.InlineKeyboardMarkup {
	return &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{
		{Text: "Approve", CallbackData: "01JASK:0", Style: "primary"},
		{Text: "Deny", CallbackData: "01JASK:1"},
	}}}
}

// The library's keyboard is stored and shown as the service shows it; the
// same text and keyboard again is not modified; an edit without
// reply_markup removes the keyboard, and is an edit.
func TestInlineKeyboardThroughTheLibrary(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	b := newBot(t, f)
	m, err := b.SendMessage(ctx(t), &bot.SendMessageParams{ChatID: chat, Text: "Deploy?", ReplyMarkup: approveDeny()})
	if err != nil {
		t.Fatal(err)
	}
	if m.ReplyMarkup == nil || !reflect.DeepEqual(m.ReplyMarkup.InlineKeyboard, approveDeny().InlineKeyboard) {
		t.Fatalf("the message shows %+v", m.ReplyMarkup)
	}
	stored, _ := f.Snapshot().Message(chat, int64(m.ID))
	want := faketelegram.Keyboard{{{Text: "Approve", Style: "primary", Data: "01JASK:0"}, {Text: "Deny", Data: "01JASK:1"}}}
	if !reflect.DeepEqual(stored.Keyboard, want) || !reflect.DeepEqual(stored.Keyboard.Data(), []string{"01JASK:0", "01JASK:1"}) {
		t.Fatalf("stored %+v", stored.Keyboard)
	}
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "Deploy?", ReplyMarkup: approveDeny()})
	wantBadRequest(t, err, notModified)

	edited, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "Deploy?"})
	if err != nil || edited.ReplyMarkup != nil {
		t.Fatalf("an edit without reply_markup: %+v, %v", edited, err)
	}
	if stored, _ := f.Snapshot().Message(chat, int64(m.ID)); stored.Keyboard != nil || !reflect.DeepEqual(stored.SentKeyboard, want) {
		t.Fatalf("the keyboard stayed: %+v (sent with %+v)", stored.Keyboard, stored.SentKeyboard)
	}
	_, err = b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "Deploy?"})
	wantBadRequest(t, err, notModified)
	// A keyboard can come back with an edit, and a changed label is a change.
	relabeled := approveDeny()
	relabeled.InlineKeyboard[0][1].Text = "No"
	for _, k := range []*models.InlineKeyboardMarkup{approveDeny(), relabeled} {
		if _, err := b.EditMessageText(ctx(t), &bot.EditMessageTextParams{ChatID: chat, MessageID: m.ID, Text: "Deploy?", ReplyMarkup: k}); err != nil {
			t.Fatal(err)
		}
	}
}

// reply_markup's refusals, in the service's words, as curl would meet
// them.
func TestInlineKeyboardRefusals(t *testing.T) {
	t.Parallel()
	f := start(t, faketelegram.Options{})
	send := func(markup string) reply {
		_, r := call(t, f, "sendMessage", url.Values{"chat_id": {"-1001000000001"}, "text": {"ask"}, "reply_markup": {markup}})
		return r
	}
	data64 := strings.Repeat("é", 32) // 64 bytes, 32 characters
	for _, c := range []struct{ markup, want string }{
		{`{"inline_keyboard":[[{"text":"A","callback_data":"` + data64 + `"}]]}`, ""},
		{`{"inline_keyboard":[[{"text":"A","callback_data":"` + data64 + `x"}]]}`, "Bad Request: BUTTON_DATA_INVALID"},
		{`{"inline_keyboard":[[{"text":"A"}]]}`, "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{`{"inline_keyboard":[[{"text":"A","callback_data":"","copy_text":{"text":""}}]]}`, "Bad Request: BUTTON_COPY_TEXT_INVALID"},
		{`{"inline_keyboard":[[{"callback_data":"a"}]]}`, `Bad Request: can't parse inline keyboard button: Can't find field "text"`},
		{`{"inline_keyboard":[[{"text":"A","callback_data":1}]]}`, `Bad Request: can't parse inline keyboard button: Field "callback_data" must be of type String`},
		{`{"inline_keyboard":[[{"text":"A","callback_data":"a","style":"green"}]]}`, "Bad Request: can't parse inline keyboard button: invalid button style specified"},
		{`{"inline_keyboard":[{"text":"A","callback_data":"a"}]}`, `Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays`},
		{`{"inline_keyboard":[["A"]]}`, "Bad Request: can't parse inline keyboard button: InlineKeyboardButton must be an Object"},
		{`[]`, "Bad Request: object expected as reply markup"},
		{`{`, "Bad Request: can't parse reply keyboard markup JSON object"},
	} {
		r := send(c.markup)
		if c.want == "" && !r.OK || c.want != "" && (r.OK || r.ErrorCode != 400 || r.Description != c.want) {
			t.Errorf("%s: %+v, want %q", c.markup, r, c.want)
		}
	}
	// An inline keyboard without buttons is none: the message has no
	// keyboard to click.
	r := send(`{"inline_keyboard":[[]]}`)
	if !r.OK || strings.Contains(string(r.Result), "reply_markup") {
		t.Fatalf("an empty keyboard: %+v", r)
	}
}
