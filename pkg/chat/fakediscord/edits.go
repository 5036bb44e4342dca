package fakediscord

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// patchMessage edits a message: only its author may, as on Discord.
func (s *Server) patchMessage(r *http.Request, token string) (int, any) {
	var body struct {
		Content         *string         `json:"content"`
		AllowedMentions json.RawMessage `json:"allowed_mentions"`
		Flags           *int            `json:"flags"`
	}
	if _, err := readBody(r, &body); err != nil {
		return invalidJSON()
	}
	if body.Content != nil && utf8.RuneCountInString(*body.Content) > maxContentRunes {
		return invalidForm()
	}
	return s.editMessage(r.PathValue("cid"), r.PathValue("mid"), token, body.Content, body.AllowedMentions, body.Flags)
}

func (s *Server) editMessage(cid, mid, token string, content *string, mentions json.RawMessage, flags *int) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, m, status, body := s.messageInLocked(cid, mid)
	switch {
	case m == nil:
		return status, body
	case m.AuthorID != BotUserID(token):
		return http.StatusForbidden, apiError(codeNotAuthor, "Cannot edit a message authored by another user")
	case t != nil && t.Archived && t.Locked:
		return http.StatusBadRequest, apiError(codeArchivedThread, "Thread is archived")
	case content != nil && *content == "":
		return http.StatusBadRequest, apiError(codeEmptyMessage, "Cannot send an empty message")
	}
	if len(mentions) > 0 {
		m.AllowedMentions = mentions
	}
	if flags != nil {
		m.Flags = *flags
	}
	s.editedLocked(m, content)
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
	return s.modifyThread(r.PathValue("cid"), token, body.Name, body.Archived, body.Locked, body.AutoArchive)
}

func (s *Server) modifyThread(cid, token string, name *string, archived, locked *bool, autoArchive *int) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.channelLocked(cid)
	switch {
	case !ok:
		return http.StatusNotFound, apiError(codeUnknownChannel, "Unknown Channel")
	case t == nil:
		// Modifying a text channel is not emulated.
		return invalidForm()
	case locked != nil && !s.hasLocked(token, PermManageThreads):
		s.logf("thread %s: locked refused, the bot lacks Manage Threads", t.ID)
		return http.StatusForbidden, apiError(codeMissingPermissions, "Missing Permissions")
	}
	if name != nil {
		t.Name = *name
	}
	if archived != nil {
		t.Archived = *archived
	}
	if locked != nil {
		t.Locked = *locked
	}
	if autoArchive != nil {
		t.AutoArchive = *autoArchive
	}
	out := s.threadChannel(*t)
	s.broadcastLocked("THREAD_UPDATE", out)
	s.notifyLocked()
	s.logf("thread %s modified (archived %v, locked %v)", t.ID, t.Archived, t.Locked)
	return http.StatusOK, out
}
