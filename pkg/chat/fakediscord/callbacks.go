package fakediscord

import (
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"
)

// Discord's interaction callback types the fake accepts for a click.
const (
	callbackMessage        = 4 // CHANNEL_MESSAGE_WITH_SOURCE
	callbackDeferredUpdate = 6 // DEFERRED_UPDATE_MESSAGE
	callbackUpdate         = 7 // UPDATE_MESSAGE

	flagEphemeral = 1 << 6
)

// Discord's error codes for a callback it refuses.
const (
	codeUnknownInteraction  = 10062
	codeAlreadyAcknowledged = 40060
)

// callbackBody is an interaction response as the fake reads it.
type callbackBody struct {
	Type int `json:"type"`
	Data *struct {
		Content    *string         `json:"content"`
		Flags      int             `json:"flags"`
		Components json.RawMessage `json:"components"`
	} `json:"data"`
}

// interactionCallback is POST /interactions/{iid}/{itoken}/callback,
// which takes no bot token (the interaction's token is the credential):
// the first valid answer within the deadline acknowledges the
// interaction (204); a second one is 400 40060, one after the deadline or
// for an unknown interaction or token 404 10062. Type 4 answers with a
// message (ephemeral with flags 64: only the clicker sees it, so nothing
// is stored in the channel), 6 acknowledges without a visible change, 7
// edits the button's message (content and, when given and not null,
// components). Every answer to a known interaction is recorded.
func (s *Server) interactionCallback(r *http.Request, _ string) (int, any) {
	var body callbackBody
	_, decodeErr := readBody(r, &body)
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.clickLocked(r.PathValue("iid"), r.PathValue("itoken"))
	if k < 0 {
		return http.StatusNotFound, apiError(codeUnknownInteraction, "Unknown interaction")
	}
	i := &s.clicks[k]
	a := Answer{Type: body.Type, Flags: flagsOf(body), At: time.Now().UTC()}
	if body.Data != nil && body.Data.Content != nil {
		a.Content = *body.Data.Content
	}
	_, acked := i.Acknowledged()
	var rows [][]Button
	switch {
	case decodeErr != nil:
		a.Status, a.Code = http.StatusBadRequest, codeInvalidJSON
	case acked:
		a.Status, a.Code = http.StatusBadRequest, codeAlreadyAcknowledged
	case a.At.Sub(i.At) > s.opts.InteractionDeadline:
		a.Status, a.Code = http.StatusNotFound, codeUnknownInteraction
	default:
		rows, a.Status, a.Code = checkCallback(body)
	}
	if a.Code == 0 {
		a.Status = http.StatusNoContent
	}
	i.Answers = append(i.Answers, a)
	s.notifyLocked()
	s.logf("interaction %s answered with type %d: %d %d", i.ID, a.Type, a.Status, a.Code)
	switch a.Code {
	case 0:
		s.applyCallbackLocked(*i, a, body, rows)
		return a.Status, nil
	case codeUnknownInteraction:
		return a.Status, apiError(a.Code, "Unknown interaction")
	case codeAlreadyAcknowledged:
		return a.Status, apiError(a.Code, "Interaction has already been acknowledged.")
	case codeInvalidJSON:
		return invalidJSON()
	case codeEmptyMessage:
		return a.Status, apiError(a.Code, "Cannot send an empty message")
	}
	return invalidForm()
}

// clickLocked finds an interaction by ID and token; -1 when either is unknown.
func (s *Server) clickLocked(id, token string) int {
	for k, i := range s.clicks {
		if i.ID == id && i.Token == token {
			return k
		}
	}
	return -1
}

func flagsOf(b callbackBody) int {
	if b.Data == nil {
		return 0
	}
	return b.Data.Flags
}

// checkCallback validates an answer to a click as Discord does: a type
// the fake emulates for components, a message (4) not empty, content and
// components within bounds. status and code are 0 when it is valid.
func checkCallback(b callbackBody) (rows [][]Button, status, code int) {
	if b.Type != callbackMessage && b.Type != callbackDeferredUpdate && b.Type != callbackUpdate {
		return nil, http.StatusBadRequest, codeInvalidFormBody
	}
	if b.Data == nil {
		if b.Type == callbackMessage {
			return nil, http.StatusBadRequest, codeEmptyMessage
		}
		return nil, 0, 0
	}
	rows, ok := parseComponents(b.Data.Components)
	content := ""
	if b.Data.Content != nil {
		content = *b.Data.Content
	}
	switch {
	case !ok || utf8.RuneCountInString(content) > maxContentRunes || b.Data.Flags&^(flagEphemeral|flagSuppressEmbeds) != 0:
		return nil, http.StatusBadRequest, codeInvalidFormBody
	case b.Type == callbackMessage && content == "" && len(rows) == 0:
		return nil, http.StatusBadRequest, codeEmptyMessage
	}
	return rows, 0, 0
}

// flagSuppressEmbeds is the one flag besides EPHEMERAL an answer may carry.
const flagSuppressEmbeds = 1 << 2

// applyCallbackLocked does what an acknowledged answer does in the
// channel: a non-ephemeral message is posted by the app's bot, an update
// edits the button's message.
func (s *Server) applyCallbackLocked(i Interaction, a Answer, b callbackBody, rows [][]Button) {
	switch {
	case a.Type == callbackMessage && a.Flags&flagEphemeral == 0:
		s.addMessageLocked(Message{ChannelID: i.ChannelID, AuthorID: BotUserID(i.token), Author: botUsername(i.token), Bot: true,
			Content: a.Content, Rows: rows, token: i.token})
	case a.Type == callbackUpdate && b.Data != nil:
		m := s.messageLocked(i.ChannelID, i.MessageID)
		if m == nil {
			return
		}
		if len(b.Data.Components) > 0 && string(b.Data.Components) != "null" {
			m.Rows = rows
		}
		s.editedLocked(m, b.Data.Content)
	}
}
