package fakediscord

import (
	"encoding/json"
	"errors"
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
	Components json.RawMessage   `json:"components"`
	StickerIDs []string          `json:"sticker_ids"`
	Poll       json.RawMessage   `json:"poll"`

	Nonce           json.RawMessage `json:"nonce"`
	EnforceNonce    bool            `json:"enforce_nonce"`
	AllowedMentions json.RawMessage `json:"allowed_mentions"`
	Flags           int             `json:"flags"`
}

// check returns Discord's 400 for an empty or too long message, or for
// components out of Discord's bounds, or ""; rows are the buttons.
func (b *messageBody) check(files bool) (rows [][]Button, code int, msg string) {
	rows, ok := parseComponents(b.Components)
	empty := b.Content == "" && len(b.Embeds) == 0 && len(rows) == 0 && len(b.StickerIDs) == 0 &&
		(len(b.Poll) == 0 || string(b.Poll) == "null") && !files
	switch {
	case !ok || utf8.RuneCountInString(b.Content) > maxContentRunes:
		return nil, codeInvalidFormBody, "Invalid Form Body"
	case empty:
		return nil, codeEmptyMessage, "Cannot send an empty message"
	}
	return rows, 0, ""
}

func (s *Server) postMessage(r *http.Request, token string) (int, any) {
	s.core.Posted()
	var body messageBody
	files, err := readBody(r, &body)
	switch {
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, apiError(codeTooLarge, "Request entity too large")
	case err != nil:
		return invalidJSON()
	}
	nonce, ok := parseNonce(body.Nonce)
	if !ok || len(files) > MaxFiles {
		return invalidForm()
	}
	rows, code, msg := body.check(len(files) > 0)
	if code != 0 {
		return http.StatusBadRequest, apiError(code, msg)
	}
	if !s.hold(r) {
		return 0, nil // the client left while held: nothing stored, nobody to answer
	}
	cid, author := r.PathValue("cid"), BotUserID(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.channelLocked(cid)
	if !ok {
		return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	}
	if nonce != "" && body.EnforceNonce {
		if m, hit := s.nonceHitLocked(author, nonce); hit {
			s.logf("nonce seen again: message %s returned, nothing stored", m.ID)
			return http.StatusOK, s.apiMessageCreatedLocked(m, s.restViewerLocked(token))
		}
	}
	if t != nil && t.Archived {
		if t.Locked {
			return http.StatusBadRequest, apiError(codeArchivedThread, "Thread is archived")
		}
		t.Archived = false // a message in an archived thread unarchives it
		s.broadcastLocked("THREAD_UPDATE", s.threadChannel(*t))
	}
	m := s.addMessageLocked(Message{ChannelID: cid, AuthorID: author, Author: botUsername(token), Bot: true,
		Content: body.Content, Rows: rows, token: token, Nonce: nonce, AllowedMentions: body.AllowedMentions, Flags: body.Flags,
		Attachments: s.attachmentsLocked(files)})
	s.rememberNonceLocked(m)
	s.logf("message %s posted in %s", m.ID, cid)
	if mode, fail := s.core.TakeAcceptFailLocked(); fail {
		s.logf("message %s stored; failing its answer", m.ID)
		return 0, mode
	}
	return http.StatusOK, s.apiMessageCreatedLocked(m, s.restViewerLocked(token))
}

// listMessages answers newest first, as Discord does. With after it
// returns the limit messages right after that ID (still newest first, so a
// client paging forward takes the first one as its next after); otherwise
// the limit newest ones before before, or at all.
func (s *Server) listMessages(r *http.Request, token string) (int, any) {
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return invalidForm()
		}
		limit = n
	}
	before, after := q.Get("before"), q.Get("after")
	cid := r.PathValue("cid")

	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channelLocked(cid); !ok {
		return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	}
	var match []Message // oldest first
	for _, m := range s.messages {
		if m.ChannelID == cid && (before == "" || snowflakeLess(m.ID, before)) && (after == "" || snowflakeLess(after, m.ID)) {
			match = append(match, m)
		}
	}
	if len(match) > limit {
		if after != "" {
			match = match[:limit]
		} else {
			match = match[len(match)-limit:]
		}
	}
	v := s.restViewerLocked(token)
	out := make([]apiMessage, 0, len(match))
	for i := len(match) - 1; i >= 0; i-- {
		out = append(out, s.apiMessageLocked(match[i], v))
	}
	return http.StatusOK, out
}

// getMessage answers one message, as the caller may see it.
func (s *Server) getMessage(r *http.Request, token string) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, m, status, errBody := s.messageInLocked(r.PathValue("cid"), r.PathValue("mid"))
	if m == nil {
		return status, errBody
	}
	return http.StatusOK, s.apiMessageLocked(*m, s.restViewerLocked(token))
}

// messageInLocked finds message mid in channel or thread cid, and the
// thread when cid is one; when either is unknown, m is nil and status and
// body are Discord's answer (10003 Unknown Channel, 10008 Unknown Message).
func (s *Server) messageInLocked(cid, mid string) (t *Thread, m *Message, status int, body any) {
	t, ok := s.channelLocked(cid)
	if !ok {
		return nil, nil, http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	}
	if m = s.messageLocked(cid, mid); m == nil {
		return nil, nil, http.StatusNotFound, apiError(codeUnknownMessage, "Unknown Message")
	}
	return t, m, 0, nil
}

// messageLocked finds a message in a channel or thread; nil when not there.
func (s *Server) messageLocked(cid, mid string) *Message {
	for i := range s.messages {
		if s.messages[i].ID == mid && s.messages[i].ChannelID == cid {
			return &s.messages[i]
		}
	}
	return nil
}

// channelLocked resolves a channel or thread ID: its parent when it is a
// thread, and whether it exists at all. A thread of an unknown channel is
// unknown too, as Discord answers for the threads of a channel deleted or
// out of the bot's reach.
func (s *Server) channelLocked(id string) (thread *Thread, ok bool) {
	if s.faults.unknown[id] {
		return nil, false
	}
	for i := range s.threads {
		if s.threads[i].ID == id {
			if s.faults.unknown[s.threads[i].ParentID] {
				return nil, false
			}
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
	m.PostedRows = m.Rows
	if t, _ := s.channelLocked(m.ChannelID); t != nil {
		m.ParentID = t.ParentID
	}
	s.messages = append(s.messages, m)
	s.core.StoredLocked(m.Nonce) // the relay's ID for a message
	s.broadcastMessageLocked("MESSAGE_CREATE", m)
	s.notifyLocked()
	return m
}

// InjectMessage stores a message from a (human) user, as if typed in Discord,
// and dispatches MESSAGE_CREATE to every session that asked for guild
// messages; sessions that are away get it on RESUME. channelID may be a
// thread's ID.
// files, if any, are attached to it as a user's client uploads them
// (a user may attach larger files than a bot: no size limit applies).
func (s *Server) InjectMessage(channelID, authorID, content string, files ...File) (Message, error) {
	uploads, err := uploadsOf(files)
	if err != nil {
		return Message{}, err
	}
	return s.inject(Message{ChannelID: channelID, AuthorID: authorID, Author: "user-" + authorID, Content: content}, uploads)
}

// InjectBotMessage is InjectMessage for a message from another bot (or
// webhook-less integration): its author is a bot in every payload.
func (s *Server) InjectBotMessage(channelID, authorID, content string) (Message, error) {
	return s.inject(Message{ChannelID: channelID, AuthorID: authorID, Author: "bot-" + authorID, Bot: true, Content: content}, nil)
}

func (s *Server) inject(m Message, files []upload) (Message, error) {
	if m.AuthorID == "" || m.Content == "" && len(files) == 0 {
		return Message{}, fmt.Errorf("fakediscord: injected message needs an author and content or files")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channelLocked(m.ChannelID); !ok {
		return Message{}, fmt.Errorf("fakediscord: unknown channel %q", m.ChannelID)
	}
	m.injected = true
	m.Attachments = s.attachmentsLocked(files)
	m = s.addMessageLocked(m)
	s.logf("message %s injected in %s", m.ID, m.ChannelID)
	return m, nil
}
