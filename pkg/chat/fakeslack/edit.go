package fakeslack

import (
	"encoding/json"
	"net/url"
)

// updateLocked answers chat.update: the text replaced in place, the old
// one kept in Edits, and a message_changed event sent, as Slack sends one
// for every edit; only the author may edit. Metadata stays unless the call
// brings new metadata; blocks likewise: blocks=[] removes them (and with
// them the buttons), no blocks parameter keeps them. Slack's reference has
// said both that an update without blocks keeps them and that one with
// text removes them; the fake keeps them, so a client that means to remove
// buttons must say so.
func (s *Server) updateLocked(token string, form url.Values) map[string]any {
	channel, ts, text := form.Get("channel"), form.Get("ts"), form.Get("text")
	if e := s.writeErrLocked(channel); e != "" {
		return fail(e)
	}
	m := s.messageLocked(channel, ts)
	if ts == "" || m == nil {
		return fail("message_not_found")
	}
	if m.User != BotUserID(token) {
		return fail("cant_update_message")
	}
	if e := checkText(text, form); e != "" {
		return fail(e)
	}
	md, e := parseMetadata(form.Get("metadata"))
	if e != "" {
		return fail(e)
	}
	blocks, buttons, be := parseBlocks(form.Get("blocks"))
	if be != nil {
		return be.answer()
	}
	m.Parse, m.LinkNames = form.Get("parse"), form.Get("link_names")
	if md != nil {
		m.Metadata = md
	}
	s.editLocked(m, text, func(m *Message) {
		if form.Has("blocks") {
			m.Blocks, m.Buttons = blocks, buttons
		}
	})
	s.logf("message %s edited in %s", ts, channel)
	return map[string]any{"ok": true, "channel": channel, "ts": ts, "text": text, "message": s.apiMessageLocked(*m, false)}
}

// key is the relay's message ID a message's metadata carries, "" if none.
func (md *Metadata) key() string {
	if md == nil {
		return ""
	}
	k, _ := md.EventPayload["key"].(string)
	return k
}

// parseMetadata reads chat.postMessage's metadata parameter; nil when
// absent, else Slack's error for a malformed one.
func parseMetadata(raw string) (*Metadata, string) {
	if raw == "" {
		return nil, ""
	}
	var md struct {
		EventType    string         `json:"event_type"`
		EventPayload map[string]any `json:"event_payload"`
	}
	if err := json.Unmarshal([]byte(raw), &md); err != nil || md.EventType == "" || md.EventPayload == nil {
		return nil, "invalid_metadata_format"
	}
	return &Metadata{EventType: md.EventType, EventPayload: md.EventPayload}, ""
}
