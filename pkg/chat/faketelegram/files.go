package faketelegram

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The service's limits on files: a bot uploads up to 50 MB a file
// (sendDocument) and downloads up to 20 MB (getFile: the Bot API
// server's MAX_DOWNLOAD_FILE_SIZE, 20 << 20).
const (
	MaxUploadBytes   = 50 << 20
	MaxDownloadBytes = 20 << 20
)

// maxCaptionLen is the service's limit on a caption, in characters.
const maxCaptionLen = 1024

// Document is a file as a message carries it (the Bot API's Document),
// with what the oracle reads of it.
type Document struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int64  `json:"file_size,omitempty"`
	// Sum is the hex SHA-256 of the content (the oracle's, not the
	// service's).
	Sum string `json:"-"`
}

// file is a stored file's content and where getFile says it lies.
type file struct {
	doc     Document
	path    string // file_path: "documents/file_<n>.<ext>"
	content []byte
}

// storeFileLocked keeps content as a new file named name and returns its
// Document. The mime type is the service's: from the name's extension
// (the Bot API server hands tdlib a local file under its original name;
// a part's own Content-Type is not read).
func (s *Server) storeFileLocked(name string, content []byte) Document {
	s.fileSeq++
	n := s.fileSeq
	sum := sha256.Sum256(content)
	d := Document{
		FileID:       fmt.Sprintf("BQACAgIAAxkBAAI%06d", n),
		FileUniqueID: fmt.Sprintf("AgAD%06d", n),
		FileName:     name,
		MimeType:     mimeOf(name),
		FileSize:     int64(len(content)),
		Sum:          hex.EncodeToString(sum[:]),
	}
	s.files[d.FileID] = &file{doc: d, path: fmt.Sprintf("documents/file_%d%s", n, path.Ext(name)), content: content}
	return d
}

// mimeOf is a file name's mime type without parameters, "" when the
// extension says none.
func mimeOf(name string) string {
	t := mime.TypeByExtension(path.Ext(name))
	if t == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(t)
	if err != nil {
		return ""
	}
	return mt
}

// captionOf reads a caption as sendDocument and editMessageCaption take
// it: trimmed as a text is, at most 1,024 characters.
func captionOf(p params) (text, *answer) {
	raw := strings.TrimSpace(p["caption"])
	if raw == "" {
		return text{parse: p["parse_mode"]}, nil
	}
	if len([]rune(raw)) > maxCaptionLen {
		return text{}, badRequest("message caption is too long")
	}
	return readText(params{"text": p["caption"], "entities": p["caption_entities"], "parse_mode": p["parse_mode"]})
}

// sendDocumentLocked answers sendDocument: the bot's document message,
// with the chat's next id, placed as sendMessage places a text. The
// document is the request's file (a multipart part named document, or
// the one "attach://<name>" names) or a stored file's file_id. Its
// caption is plain text (as the relay sends it), at most 1,024
// characters.
func (s *Server) sendDocumentLocked(p params, up uploads) *answer {
	ch, fail := s.chatLocked(p["chat_id"])
	if fail != nil {
		return fail
	}
	doc, fail := s.documentLocked(p, up)
	if fail != nil {
		return fail
	}
	caption, fail := captionOf(p)
	if fail != nil {
		return fail
	}
	keyboard, fail := readKeyboard(p["reply_markup"])
	if fail != nil {
		return fail
	}
	thread, replyTo, fail := placeLocked(ch, p)
	if fail != nil {
		return fail
	}
	m := s.storeLocked(ch, &Message{
		From: s.bot, Thread: thread, ReplyTo: replyTo, Document: &doc, Caption: caption.text, CaptionEntities: caption.entities,
		ParseMode: caption.parse, Keyboard: keyboard, SentKeyboard: keyboard,
	})
	s.core.StoredLocked(relayKey(m))
	s.logf("document %d (%s, %d bytes) posted in chat %d (thread %d)", m.ID, doc.FileName, doc.FileSize, ch.ID, m.Thread)
	return ok(s.wireLocked(m, true))
}

// documentLocked is the document a sendDocument names, stored when it is
// a new file.
func (s *Server) documentLocked(p params, up uploads) (Document, *answer) {
	field := "document"
	if name, attached := strings.CutPrefix(p["document"], "attach://"); attached {
		field = name
	} else if id := p["document"]; id != "" {
		f := s.files[id]
		if f == nil {
			return Document{}, badRequest("wrong file identifier/HTTP URL specified")
		}
		return f.doc, nil
	}
	u, found := up[field]
	if !found {
		return Document{}, badRequest("there is no document in the request")
	}
	if len(u.content) == 0 {
		return Document{}, badRequest("file must be non-empty")
	}
	return s.storeFileLocked(u.name, u.content), nil
}

// editMessageCaptionLocked answers editMessageCaption in tdlib's order:
// no such message ("message to edit not found"), not the bot's or a
// service message ("message can't be edited"), a message that cannot
// have a caption, a text ("there is no caption in the message to
// edit"); the same caption, entities and keyboard again is "not
// modified". As an edit of a text, it leaves the message without a
// keyboard when it carries none.
func (s *Server) editMessageCaptionLocked(p params) *answer {
	ch, m, fail := s.editableLocked(p)
	if fail != nil {
		return fail
	}
	if m.Document == nil {
		return badRequest(editNoCaption)
	}
	caption, fail := captionOf(p)
	if fail != nil {
		return fail
	}
	keyboard, fail := readKeyboard(p["reply_markup"])
	if fail != nil {
		return fail
	}
	if caption.text == m.Caption && slices.EqualFunc(caption.entities, m.CaptionEntities, sameEntity) && sameKeyboard(keyboard, m.Keyboard) {
		return badRequest(editNotModified)
	}
	m.Edits = append(m.Edits, m.Caption)
	m.Caption, m.CaptionEntities, m.ParseMode, m.Keyboard = caption.text, caption.entities, caption.parse, keyboard
	m.EditDate = time.Now()
	s.core.NotifyLocked()
	s.logf("caption of message %d edited in chat %d", m.ID, ch.ID)
	return ok(s.wireLocked(m, true))
}

// getFileLocked answers getFile: the file's id, size and file_path, the
// path a download takes (<api>/file/bot<token>/<file_path>). A file over
// 20 MB is "file is too big", as the Bot API server answers before it
// downloads anything.
func (s *Server) getFileLocked(p params) *answer {
	id := p["file_id"]
	if id == "" {
		return badRequest("file_id not specified")
	}
	f := s.files[id]
	if f == nil {
		return badRequest("invalid file_id")
	}
	if f.doc.FileSize > MaxDownloadBytes {
		return badRequest("file is too big")
	}
	s.fileGets++
	return ok(map[string]any{"file_id": f.doc.FileID, "file_unique_id": f.doc.FileUniqueID, "file_size": f.doc.FileSize, "file_path": f.path})
}

// serveFile serves GET /file/bot<token>/<file_path>: the content of a
// file getFile gave the path of, for the bot's own token only. Anything
// else is 404 "Not Found", a wrong token included (the service's file
// host does not say which part was wrong).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	token, isBot := strings.CutPrefix(r.PathValue("bot"), "bot")
	s.mu.Lock()
	var content []byte
	if isBot && token == s.opts.Token && !s.faults.revoked && r.Method == http.MethodGet {
		for _, f := range s.files {
			if f.path == r.PathValue("path") {
				content = f.content
			}
		}
	}
	if content != nil {
		s.downloads++
	}
	s.mu.Unlock()
	if content == nil {
		s.logf("file download refused")
		writeAnswer(w, notFound("Not Found"))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	_, _ = w.Write(content)
}
