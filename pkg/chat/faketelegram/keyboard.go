package faketelegram

import (
	"encoding/json"
	"reflect"
	"strings"
)

// maxCallbackData is the most bytes a button's callback_data may have
// ("1-64 bytes", the Bot API reference says of InlineKeyboardButton).
const maxCallbackData = 64

// Button is an inline keyboard button as the fake keeps it and the Bot
// API shows it: a callback button (Data) or a URL button (URL). Style is
// "primary", "success" or "danger", "" for the app's own.
type Button struct {
	Text  string `json:"text"`
	Style string `json:"style,omitempty"`
	URL   string `json:"url,omitempty"`
	Data  string `json:"callback_data,omitempty"`
}

// Keyboard is an inline keyboard's rows; nil for none.
type Keyboard [][]Button

// Data are the callback data of its buttons, row by row.
func (k Keyboard) Data() []string {
	var out []string
	for _, row := range k {
		for _, b := range row {
			if b.Data != "" {
				out = append(out, b.Data)
			}
		}
	}
	return out
}

func (k Keyboard) clone() Keyboard {
	var c Keyboard
	for _, row := range k {
		c = append(c, append([]Button(nil), row...))
	}
	return c
}

// sameKeyboard compares two keyboards as the service does before it
// answers "message is not modified": button by button, text, style and
// what the button does.
func sameKeyboard(a, b Keyboard) bool { return reflect.DeepEqual(a, b) }

// readKeyboard reads a reply_markup parameter as sendMessage and
// editMessageText take it. An absent one, or an inline keyboard without
// buttons, is none: the message then has no keyboard, so an edit without
// reply_markup removes the one it had (the Bot API reference does not
// say so; the service does it, and it is how bots remove a keyboard).
// The refusals are the Bot API server's, in its words (tdlib/
// telegram-bot-api's get_reply_markup), and BUTTON_DATA_INVALID the
// service's for callback_data over 64 bytes. Reply keyboards, force
// replies and button kinds other than callback and URL are not emulated.
func readKeyboard(raw string) (Keyboard, *answer) {
	if raw == "" {
		return nil, nil
	}
	var markup any
	if json.Unmarshal([]byte(raw), &markup) != nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	object, isObject := markup.(map[string]any)
	if !isObject {
		return nil, badRequest("object expected as reply markup")
	}
	for _, other := range []string{"keyboard", "remove_keyboard", "hide_keyboard", "force_reply"} {
		if _, has := object[other]; has {
			return nil, badRequest("reply markups other than an inline keyboard are not emulated")
		}
	}
	rowsValue, has := object["inline_keyboard"]
	if !has {
		return nil, nil
	}
	rows, isArray := rowsValue.([]any)
	if !isArray {
		return nil, badRequest(`field "inline_keyboard" must be of type Array`)
	}
	var k Keyboard
	for _, r := range rows {
		buttons, isArray := r.([]any)
		if !isArray {
			return nil, badRequest(`field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays`)
		}
		var row []Button
		for _, b := range buttons {
			button, fail := readButton(b)
			if fail != nil {
				return nil, fail
			}
			row = append(row, button)
		}
		if len(row) > 0 {
			k = append(k, row)
		}
	}
	for _, d := range k.Data() {
		if len(d) > maxCallbackData {
			return nil, badRequest("BUTTON_DATA_INVALID")
		}
	}
	return k, nil
}

// readButton reads an InlineKeyboardButton, or answers why it cannot.
// As the Bot API server does, a non-empty url makes a URL button and then
// a non-empty callback_data a callback one, before any other kind is
// looked at: go-telegram/bot sends an empty copy_text with every button,
// which alone is the service's BUTTON_COPY_TEXT_INVALID.
func readButton(v any) (Button, *answer) {
	b, why := parseButton(v)
	if why != "" {
		return Button{}, badRequest("can't parse inline keyboard button: " + why)
	}
	if b.URL != "" || b.Data != "" {
		return b, nil
	}
	o := v.(map[string]any)
	if c, has := o["copy_text"].(map[string]any); has && c["text"] == "" {
		return Button{}, badRequest("BUTTON_COPY_TEXT_INVALID")
	}
	for _, kind := range []string{"callback_game", "pay", "switch_inline_query", "switch_inline_query_chosen_chat", "switch_inline_query_current_chat", "login_url", "web_app", "copy_text"} {
		if _, has := o[kind]; has {
			return Button{}, badRequest("buttons other than callback and URL ones are not emulated")
		}
	}
	return Button{}, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
}

// parseButton reads a button's text, style, url and callback_data; why
// it cannot, as the Bot API server words it, or "".
func parseButton(v any) (Button, string) {
	o, isObject := v.(map[string]any)
	if !isObject {
		return Button{}, "InlineKeyboardButton must be an Object"
	}
	var b Button
	var why [4]string
	b.Text, why[0] = stringField(o, "text", true)
	b.Style, why[1] = stringField(o, "style", false)
	b.URL, why[2] = stringField(o, "url", false)
	b.Data, why[3] = stringField(o, "callback_data", false)
	for _, w := range why {
		if w != "" {
			return Button{}, w
		}
	}
	switch b.Style = strings.ToLower(b.Style); b.Style {
	case "", "primary", "success", "danger":
	case "default":
		b.Style = ""
	default:
		return Button{}, "invalid button style specified"
	}
	if b.URL != "" {
		b.Data = ""
	}
	return b, ""
}

// stringField reads a string field of a JSON object; why it cannot, in
// the Bot API server's words, or "".
func stringField(o map[string]any, name string, required bool) (string, string) {
	v, has := o[name]
	if !has {
		if required {
			return "", `Can't find field "` + name + `"`
		}
		return "", ""
	}
	s, isString := v.(string)
	if !isString {
		return "", `Field "` + name + `" must be of type String`
	}
	return s, ""
}
