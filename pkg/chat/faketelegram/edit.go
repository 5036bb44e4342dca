package faketelegram

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"
)

// The service's descriptions of editMessageText's refusals, which the
// provider's id probe reads.
const (
	editNotFound    = "message to edit not found"
	editCantBe      = "message can't be edited"
	editNotModified = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
	editNoText      = "there is no text in the message to edit"
	editNoCaption   = "there is no caption in the message to edit"
)

// editableLocked is the message an edit (of a text or a caption) names,
// refused in the service's order before what is edited is looked at: an
// inline message, no such message, not the bot's or a service message.
func (s *Server) editableLocked(p params) (*chat, *Message, *answer) {
	if p["inline_message_id"] != "" {
		return nil, nil, badRequest("inline messages are not emulated")
	}
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return nil, nil, fail
	}
	m := ch.liveMessage(p.int("message_id", 0))
	if m == nil {
		return nil, nil, badRequest(editNotFound)
	}
	if m.From.ID != s.bot.ID || m.Service != "" {
		return nil, nil, badRequest(editCantBe)
	}
	return ch, m, nil
}

// editMessageTextLocked answers editMessageText: only the bot's own text
// messages can be edited (a document of the bot's: "there is no text in
// the message to edit"); the same text, entities and inline keyboard
// again is "not modified", and nothing changes. The keyboard is the one
// the edit carries: without reply_markup the message has none after it.
func (s *Server) editMessageTextLocked(p params) *answer {
	ch, m, fail := s.editableLocked(p)
	if fail != nil {
		return fail
	}
	if m.Document != nil {
		return badRequest(editNoText)
	}
	t, fail := readText(p)
	if fail != nil {
		return fail
	}
	keyboard, fail := readKeyboard(p["reply_markup"])
	if fail != nil {
		return fail
	}
	preview, noPreview := p["link_preview_options"], p["disable_web_page_preview"]
	if t.text == m.Text && slices.EqualFunc(t.entities, m.Entities, sameEntity) && sameKeyboard(keyboard, m.Keyboard) &&
		(!hasURL(t.entities) || previewOff(preview, noPreview) == previewOff(m.LinkPreview, m.NoWebPreview)) {
		return badRequest(editNotModified)
	}
	m.Edits = append(m.Edits, m.Text)
	m.Text, m.Entities, m.ParseMode, m.Keyboard = t.text, t.entities, t.parse, keyboard
	m.LinkPreview, m.NoWebPreview = preview, noPreview
	m.EditDate = time.Now()
	s.core.NotifyLocked()
	s.logf("message %d edited in chat %d", m.ID, ch.ID)
	return ok(s.wireLocked(m, true))
}

func sameEntity(a, b Entity) bool { return reflect.DeepEqual(a, b) }

// hasURL says whether a text has a link the service could preview.
func hasURL(es []Entity) bool {
	return slices.ContainsFunc(es, func(e Entity) bool { return e.Type == "url" || e.Type == "text_link" })
}

// previewOff says whether link_preview_options (JSON) or
// disable_web_page_preview turn a message's link preview off. A text
// with a link whose preview an edit turns on or off is a changed content
// (the preview is part of it), so such an edit is no "not modified".
func previewOff(options, disable string) bool {
	var o struct {
		IsDisabled bool `json:"is_disabled"`
	}
	_ = json.Unmarshal([]byte(options), &o)
	return o.IsDisabled || disable == "true"
}
