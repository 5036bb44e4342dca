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

	Nonce           json.RawMessage `json:"nonce"`
	EnforceNonce    bool            `json:"enforce_nonce"`
	AllowedMentions json.RawMessage `json:"allowed_mentions"`
	Flags           int             `json:"flags"`
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
	s.mu.Lock()
	s.posts++
	s.notifyLocked()
	s.mu.Unlock()
	var body messageBody
	files, err := readBody(r, &body)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidJSON, "The request body contains invalid JSON.")
		return
	}
	nonce, ok := parseNonce(body.Nonce)
	if !ok {
		writeError(w, http.StatusBadRequest, codeInvalidFormBody, "Invalid Form Body")
		return
	}
	if code, msg := body.check(files); code != 0 {
		writeError(w, http.StatusBadRequest, code, msg)
		return
	}
	if !s.hold(r) {
		return // the client left while held: nothing stored, nobody to answer
	}
	cid, author := r.PathValue("cid"), BotUserID(token)
	s.mu.Lock()
	t, ok := s.channelLocked(cid)
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
		return
	}
	if nonce != "" && body.EnforceNonce {
		if m, hit := s.nonceHitLocked(author, nonce); hit {
			s.mu.Unlock()
			s.logf("nonce seen again: message %s returned, nothing stored", m.ID)
			writeJSON(w, http.StatusOK, s.apiMessageCreated(m))
			return
		}
	}
	if t != nil && t.Archived {
		if t.Locked {
			s.mu.Unlock()
			writeError(w, http.StatusBadRequest, codeArchivedThread, "Thread is archived")
			return
		}
		t.Archived = false // a message in an archived thread unarchives it
		s.broadcastLocked("THREAD_UPDATE", s.threadChannel(*t))
	}
	m := s.addMessageLocked(Message{ChannelID: cid, AuthorID: author, Author: botUsername(token), Bot: true,
		Content: body.Content, Nonce: nonce, AllowedMentions: body.AllowedMentions, Flags: body.Flags})
	s.rememberNonceLocked(m)
	mode, fail := s.takeAcceptFailLocked()
	s.mu.Unlock()
	s.logf("message %s posted in %s", m.ID, cid)
	if fail {
		s.logf("message %s stored; failing its answer", m.ID)
		s.failAccepted(w, mode)
		return
	}
	writeJSON(w, http.StatusOK, s.apiMessageCreated(m))
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
	if s.faults.unknown[id] {
		return nil, false
	}
	for i := range s.threads {
		if s.threads[i].ID == id {
			return &s.threads[i], true
		}
	}
	return nil, s.channels == nil || s.channels[id]
}

// addMessageLocked stores a message, dispatches MESSAGE_CREATE and returns it.
// m.ID is only given for a forum post's first message, which shares the
// thread's ID; the time and the parent are filled in.
func (s *Server) addMessageLocked(m Message) Message {
	if m.ID == "" {
		m.ID = s.nextIDLocked()
	}
	m.Time = time.Now().UTC()
	if t, _ := s.channelLocked(m.ChannelID); t != nil {
		m.ParentID = t.ParentID
	}
	s.messages = append(s.messages, m)
	s.broadcastLocked("MESSAGE_CREATE", s.apiMessageCreated(m))
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
	m := s.addMessageLocked(Message{ChannelID: channelID, AuthorID: authorID, Author: "user-" + authorID, Content: content})
	s.logf("message %s injected in %s", m.ID, channelID)
	return m, nil
}
