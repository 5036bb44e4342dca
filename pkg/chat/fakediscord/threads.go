package fakediscord

import (
	"net/http"
	"unicode/utf8"
)

// startThread creates a thread without a starter message, or with one when
// the body carries "message", as a forum post does.
func (s *Server) startThread(r *http.Request, token string) (int, any) {
	var body struct {
		Name    string       `json:"name"`
		Type    int          `json:"type"`
		Message *messageBody `json:"message"`
	}
	files, err := readBody(r, &body)
	if err != nil {
		return invalidJSON()
	}
	if body.Name == "" {
		return invalidForm()
	}
	var rows [][]Button
	if body.Message != nil {
		var code int
		var msg string
		if rows, code, msg = body.Message.check(len(files) > 0); code != 0 {
			return http.StatusBadRequest, apiError(code, msg)
		}
	}
	typ := body.Type
	switch {
	case body.Message != nil:
		typ = channelTypePublicThread
	case typ == 0:
		// API v9 makes a thread without a type private; discordgo's
		// ThreadStart omits a zero Type.
		typ = channelTypePrivateThread
	}
	if !s.hold(r) {
		return 0, nil // the client left while held: nothing made
	}
	cid := r.PathValue("cid")

	s.mu.Lock()
	defer s.mu.Unlock()
	if status, errBody := s.threadParentLocked(cid); status != 0 {
		return status, errBody
	}
	t := Thread{ID: s.nextIDLocked(), ParentID: cid, Name: body.Name, Type: typ, OwnerID: BotUserID(token)}
	s.addThreadLocked(t)
	if body.Message != nil {
		t.StarterID = t.ID
		s.threads[len(s.threads)-1].StarterID = t.ID
		s.addMessageLocked(Message{ID: t.ID, ChannelID: t.ID, AuthorID: BotUserID(token), Author: botUsername(token), Bot: true,
			Content: body.Message.Content, Rows: rows, token: token, AllowedMentions: body.Message.AllowedMentions, Flags: body.Message.Flags})
	}
	s.logf("thread %s created in %s", t.ID, cid)
	return http.StatusCreated, s.threadChannel(t)
}

// startMessageThread creates a public thread that shares the message's ID.
func (s *Server) startMessageThread(r *http.Request, token string) (int, any) {
	var body struct {
		Name        string `json:"name"`
		AutoArchive int    `json:"auto_archive_duration"`
	}
	if _, err := readBody(r, &body); err != nil {
		return invalidJSON()
	}
	if body.Name == "" || utf8.RuneCountInString(body.Name) > maxThreadName || !validAutoArchive(body.AutoArchive) {
		return invalidForm()
	}
	if !s.hold(r) {
		return 0, nil // the client left while held: nothing made
	}
	cid, mid := r.PathValue("cid"), r.PathValue("mid")
	s.mu.Lock()
	defer s.mu.Unlock()
	if status, errBody := s.threadParentLocked(cid); status != 0 {
		return status, errBody
	}
	if s.messageLocked(cid, mid) == nil {
		return http.StatusNotFound, apiError(codeUnknownMessage, "Unknown Message")
	}
	if t, _ := s.channelLocked(mid); t != nil {
		return http.StatusBadRequest, apiError(codeThreadExists, "A thread has already been created for this message")
	}
	t := Thread{ID: mid, ParentID: cid, Name: body.Name, Type: channelTypePublicThread, StarterID: mid, OwnerID: BotUserID(token), AutoArchive: body.AutoArchive}
	s.addThreadLocked(t)
	s.logf("thread %s created from message in %s", t.ID, cid)
	return http.StatusCreated, s.threadChannel(t)
}

// threadParentLocked checks that a thread may be created in cid.
func (s *Server) threadParentLocked(cid string) (status int, body any) {
	switch t, ok := s.channelLocked(cid); {
	case !ok:
		return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	case t != nil:
		return http.StatusBadRequest, apiError(codeWrongChannelType, "Cannot execute action on this channel type")
	}
	return 0, nil
}

func (s *Server) addThreadLocked(t Thread) {
	if t.AutoArchive == 0 {
		t.AutoArchive = 1440
	}
	s.threads = append(s.threads, t)
	body := s.threadChannel(t)
	body["newly_created"] = true
	s.broadcastLocked("THREAD_CREATE", body)
	s.notifyLocked()
}

// maxThreadName is Discord's limit on a thread name, in code points.
const maxThreadName = 100

// validAutoArchive: Discord takes 60, 1440, 4320 or 10080 minutes, or none.
func validAutoArchive(m int) bool {
	switch m {
	case 0, 60, 1440, 4320, 10080:
		return true
	}
	return false
}
