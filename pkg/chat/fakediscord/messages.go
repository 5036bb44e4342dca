package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxContentRunes is Discord's limit on a message's content.
const maxContentRunes = 2000

// messageBody is what a message create carries that the fake looks at.
type messageBody struct {
	Content    string            `json:"content"`
	Embeds     []json.RawMessage `json:"embeds"`
	Components []json.RawMessage `json:"components"`
	StickerIDs []string          `json:"sticker_ids"`
	Poll       json.RawMessage   `json:"poll"`
}

// check returns Discord's 400 for an empty or too long message, or "".
func (b *messageBody) check(files bool) (code int, msg string) {
	empty := b.Content == "" && len(b.Embeds) == 0 && len(b.Components) == 0 && len(b.StickerIDs) == 0 &&
		(len(b.Poll) == 0 || string(b.Poll) == "null") && !files
	switch {
	case empty:
		return codeEmptyMessage, "Cannot send an empty message"
	case utf8.RuneCountInString(b.Content) > maxContentRunes:
		return codeInvalidFormBody, "Invalid Form Body"
	}
	return 0, ""
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request, token string) {
	var body messageBody
	files, err := readBody(r, &body)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidJSON, "The request body contains invalid JSON.")
		return
	}
	if code, msg := body.check(files); code != 0 {
		writeError(w, http.StatusBadRequest, code, msg)
		return
	}
	cid := r.PathValue("cid")
	s.mu.Lock()
	if _, ok := s.channelLocked(cid); !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
		return
	}
	m := s.addMessageLocked("", cid, BotUserID(token), botUsername(token), true, body.Content)
	s.mu.Unlock()
	s.logf("message %s posted in %s", m.ID, cid)
	writeJSON(w, http.StatusOK, s.apiMessage(m))
}

// listMessages answers newest first, as Discord does.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, codeInvalidFormBody, "Invalid Form Body")
			return
		}
		limit = n
	}
	before, after := q.Get("before"), q.Get("after")
	cid := r.PathValue("cid")

	s.mu.Lock()
	if _, ok := s.channelLocked(cid); !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
		return
	}
	var match []Message // oldest first
	for _, m := range s.messages {
		if m.ChannelID == cid && (before == "" || snowflakeLess(m.ID, before)) && (after == "" || snowflakeLess(after, m.ID)) {
			match = append(match, m)
		}
	}
	s.mu.Unlock()

	// With after, Discord pages forward from it; otherwise back from the newest.
	if len(match) > limit {
		if after != "" {
			match = match[:limit]
		} else {
			match = match[len(match)-limit:]
		}
	}
	out := make([]apiMessage, 0, len(match))
	for i := len(match) - 1; i >= 0; i-- {
		out = append(out, s.apiMessage(match[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

// channelLocked resolves a channel or thread ID: its parent when it is a
// thread, and whether it exists at all.
func (s *Server) channelLocked(id string) (thread *Thread, ok bool) {
	for i := range s.threads {
		if s.threads[i].ID == id {
			return &s.threads[i], true
		}
	}
	return nil, s.channels == nil || s.channels[id]
}

// addMessageLocked stores a message, dispatches MESSAGE_CREATE and returns it.
// id is only given for a forum post's first message, which shares the thread's ID.
func (s *Server) addMessageLocked(id, channelID, authorID, author string, bot bool, content string) Message {
	if id == "" {
		id = s.nextIDLocked()
	}
	m := Message{ID: id, ChannelID: channelID, AuthorID: authorID, Author: author, Bot: bot, Content: content, Time: time.Now().UTC()}
	if t, _ := s.channelLocked(channelID); t != nil {
		m.ParentID = t.ParentID
	}
	s.messages = append(s.messages, m)
	s.broadcastLocked("MESSAGE_CREATE", s.apiMessage(m))
	s.notifyLocked()
	return m
}

// InjectMessage stores a message from a (human) user, as if typed in Discord,
// and dispatches MESSAGE_CREATE to every session; sessions that are away get
// it on RESUME. channelID may be a thread's ID.
func (s *Server) InjectMessage(channelID, authorID, content string) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channelLocked(channelID); !ok {
		return Message{}, fmt.Errorf("fakediscord: unknown channel %q", channelID)
	}
	m := s.addMessageLocked("", channelID, authorID, "user-"+authorID, false, content)
	s.logf("message %s injected in %s", m.ID, channelID)
	return m, nil
}
