package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// patchMessage edits a message: only its author may, as on Discord.
// components, when present, replace the buttons whole (null and [] remove
// them); absent, they stay.
func (s *Server) patchMessage(r *http.Request, token string) (int, any) {
	var body struct {
		Content         *string         `json:"content"`
		Components      json.RawMessage `json:"components"`
		AllowedMentions json.RawMessage `json:"allowed_mentions"`
		Flags           *int            `json:"flags"`
	}
	if _, err := readBody(r, &body); err != nil {
		return invalidJSON()
	}
	rows, ok := parseComponents(body.Components)
	if !ok || (body.Content != nil && utf8.RuneCountInString(*body.Content) > maxContentRunes) {
		return invalidForm()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, m, status, errBody := s.messageInLocked(r.PathValue("cid"), r.PathValue("mid"))
	switch {
	case m == nil:
		return status, errBody
	case m.AuthorID != BotUserID(token):
		return http.StatusForbidden, apiError(codeNotAuthor, "Cannot edit a message authored by another user")
	case t != nil && t.Archived && t.Locked:
		return http.StatusBadRequest, apiError(codeArchivedThread, "Thread is archived")
	}
	if len(body.Components) == 0 {
		rows = m.Rows
	}
	content := m.Content
	if body.Content != nil {
		content = *body.Content
	}
	if content == "" && len(rows) == 0 { // what the edit leaves must not be empty
		return http.StatusBadRequest, apiError(codeEmptyMessage, "Cannot send an empty message")
	}
	m.Rows = rows
	if len(body.AllowedMentions) > 0 {
		m.AllowedMentions = body.AllowedMentions
	}
	if body.Flags != nil {
		m.Flags = *body.Flags
	}
	s.editedLocked(m, body.Content)
	return http.StatusOK, s.apiMessageLocked(*m, s.restViewerLocked(token))
}

// EditInjected changes the content of a message InjectMessage or
// InjectBotMessage stored, as its author editing it in Discord would, and
// dispatches MESSAGE_UPDATE (with edited_timestamp) under the same intent
// and content rules as MESSAGE_CREATE.
func (s *Server) EditInjected(channelID, messageID, content string) error {
	if content == "" {
		return fmt.Errorf("fakediscord: edit of %s: empty content", messageID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channelLocked(channelID); !ok {
		return fmt.Errorf("fakediscord: edit of %s: unknown channel %q", messageID, channelID)
	}
	m := s.messageLocked(channelID, messageID)
	switch {
	case m == nil:
		return fmt.Errorf("fakediscord: edit of %s: no such message in %s", messageID, channelID)
	case !m.injected:
		return fmt.Errorf("fakediscord: edit of %s: a bot posted it; edit it through REST", messageID)
	}
	s.editedLocked(m, &content)
	return nil
}

// editedLocked stamps an edit, of the content too unless it is nil, and
// dispatches MESSAGE_UPDATE.
func (s *Server) editedLocked(m *Message, content *string) {
	if content != nil {
		m.Edits = append(m.Edits, m.Content)
		m.Content = *content
	}
	m.EditedAt = time.Now().UTC()
	s.broadcastMessageLocked("MESSAGE_UPDATE", *m)
	s.notifyLocked()
	s.logf("message %s edited in %s", m.ID, m.ChannelID)
}

// patchChannel modifies a thread: archived, locked, name, auto-archive.
func (s *Server) patchChannel(r *http.Request, token string) (int, any) {
	var body struct {
		Name        *string `json:"name"`
		Archived    *bool   `json:"archived"`
		Locked      *bool   `json:"locked"`
		AutoArchive *int    `json:"auto_archive_duration"`
	}
	if _, err := readBody(r, &body); err != nil {
		return invalidJSON()
	}
	if (body.Name != nil && (*body.Name == "" || utf8.RuneCountInString(*body.Name) > maxThreadName)) ||
		(body.AutoArchive != nil && (*body.AutoArchive == 0 || !validAutoArchive(*body.AutoArchive))) {
		return invalidForm()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.channelLocked(r.PathValue("cid"))
	switch {
	case !ok:
		return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	case t == nil:
		// Modifying a text channel is not emulated.
		return invalidForm()
	case body.Locked != nil && !s.hasLocked(token, PermManageThreads):
		s.logf("thread %s: locked refused, the bot lacks Manage Threads", t.ID)
		return http.StatusForbidden, apiError(codeMissingPermissions, "Missing Permissions")
	}
	if body.Name != nil {
		t.Name = *body.Name
	}
	if body.Archived != nil {
		t.Archived = *body.Archived
	}
	if body.Locked != nil {
		t.Locked = *body.Locked
	}
	if body.AutoArchive != nil {
		t.AutoArchive = *body.AutoArchive
	}
	out := s.threadChannel(*t)
	s.broadcastLocked("THREAD_UPDATE", out)
	s.notifyLocked()
	s.logf("thread %s modified (archived %v, locked %v)", t.ID, t.Archived, t.Locked)
	return http.StatusOK, out
}
