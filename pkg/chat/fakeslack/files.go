package fakeslack

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// File is a file as the fake holds it: a bot's upload (a ticket from
// files.getUploadURLExternal, its bytes sent to the upload URL, then
// completed by files.completeUploadExternal) or a file a user attached to
// a message (InjectMessageWithFiles).
type File struct {
	ID   string
	Name string // the filename the upload was asked for with
	// Title is the completion's title for it (Name when it gave none).
	Title string
	// Length is the size the ticket was asked for; Size and Sum (hex
	// SHA-256) those of the bytes the upload URL received.
	Length, Size int64
	Sum          string
	// ContentType is the file's mimetype: the upload part's own type,
	// else the name's extension's, else sniffed from the content.
	ContentType string
	User        string // who uploaded it
	// Uploaded is set once the upload URL received the whole file;
	// Completed once files.completeUploadExternal took it (Completions
	// counts every call that named it, a refused repeat included).
	Uploaded, Completed bool
	Completions         int
	CompletedAt         time.Time
	// Channel and ThreadTS are where it was shared, MessageTS the message
	// that shares it ("" while it is shared nowhere).
	Channel, ThreadTS, MessageTS string
	// Deleted is set by DeleteFile.
	Deleted bool

	content []byte // kept for a user's file only, served at its URL
	ticket  string
}

// Attachment is a file a user attaches to a message (InjectMessageWithFiles).
type Attachment struct {
	Name, ContentType string
	Content           []byte
}

// SetShareLag makes files.info show a completed file's share only d after
// its completion, as Slack shares a file asynchronously: the message is
// there at once, the file's shares follow (0 ends it).
func (s *Server) SetShareLag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shareLag = d
}

// DeleteFile deletes a file as a workspace admin does: its message is
// removed with it, and files.info answers file_deleted. It reports
// whether the file was there.
func (s *Server) DeleteFile(id string) bool {
	s.mu.Lock()
	f := s.fileLocked(id)
	if f == nil || f.Deleted {
		s.mu.Unlock()
		return false
	}
	f.Deleted = true
	channel, ts := f.Channel, f.MessageTS
	f.content = nil
	s.notifyLocked()
	s.mu.Unlock()
	if ts != "" {
		s.DeleteMessage(channel, ts)
	}
	return true
}

// InjectMessageWithFiles stores a message from user with files attached,
// as if they attached them in Slack, and sends its message event (subtype
// file_share) to every app. Each file is served at its
// url_private_download to a bot token only.
func (s *Server) InjectMessageWithFiles(channel, user, text, threadTS string, files ...Attachment) (Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.channelLocked(channel) {
		return Message{}, fmt.Errorf("fakeslack: unknown channel %q", channel)
	}
	parent, ok := s.threadLocked(channel, threadTS)
	if !ok {
		return Message{}, fmt.Errorf("fakeslack: no message %q in %q to reply to", threadTS, channel)
	}
	now := time.Now()
	ids := make([]string, 0, len(files))
	var made []*File
	for _, a := range files {
		sum := sha256.Sum256(a.Content)
		f := &File{ID: s.nextFileIDLocked(), Name: a.Name, Title: a.Name, Length: int64(len(a.Content)), Size: int64(len(a.Content)),
			Sum: hex.EncodeToString(sum[:]), ContentType: fileType(a.ContentType, a.Name, a.Content), User: user,
			Uploaded: true, Completed: true, CompletedAt: now, Channel: channel, ThreadTS: parent, content: a.Content}
		s.files = append(s.files, f)
		made = append(made, f)
		ids = append(ids, f.ID)
	}
	m := s.addMessageLocked(Message{Channel: channel, ThreadTS: parent, User: user, Text: text, Files: ids})
	for _, f := range made {
		f.MessageTS = m.TS
	}
	s.logf("message %s with %d files injected in %s", m.TS, len(files), channel)
	return m, nil
}

// getUploadURLLocked answers files.getUploadURLExternal: a new file id and
// the URL its bytes go to, on this server (Slack's is on files.slack.com).
func (s *Server) getUploadURLLocked(token string, form url.Values) map[string]any {
	name := form.Get("filename")
	length, err := parseLength(form.Get("length"))
	if name == "" || err != nil || length <= 0 {
		return fail("missing_argument")
	}
	f := &File{ID: s.nextFileIDLocked(), Name: name, Title: name, Length: length, User: BotUserID(token), ticket: "Cw" + strings.ToUpper(fakeserver.RandomHex(12))}
	s.files = append(s.files, f)
	s.logf("file %s: upload ticket for %d bytes", f.ID, length)
	return map[string]any{"ok": true, "file_id": f.ID, "upload_url": s.URL() + "/upload/v1/" + f.ticket}
}

// completeUploadLocked answers files.completeUploadExternal: each file
// named must have been uploaded and not completed before (Slack's method
// "can only be called once"; a repeat answers file_not_found, as a ticket
// already spent is not found). The files are then shared in one message
// of the bot's in channel_id, in the thread thread_ts names.
func (s *Server) completeUploadLocked(token string, form url.Values) map[string]any {
	var named []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(form.Get("files")), &named); err != nil || len(named) == 0 {
		return fail("invalid_arguments")
	}
	var files []*File
	for _, n := range named {
		f := s.fileLocked(n.ID)
		if f == nil {
			return fail("file_not_found")
		}
		f.Completions++
		if !f.Uploaded || f.Completed {
			return fail("file_not_found")
		}
		if n.Title != "" {
			f.Title = n.Title
		}
		files = append(files, f)
	}
	channel := form.Get("channel_id")
	if channel == "" {
		channel = form.Get("channels") // one channel, as with thread_ts it must be
	}
	now := time.Now()
	if channel == "" {
		for _, f := range files {
			f.Completed, f.CompletedAt = true, now // private: shared nowhere
		}
		return s.completedLocked(files)
	}
	if e := s.writeErrLocked(channel); e != "" {
		return fail(e)
	}
	parent, ok := s.threadLocked(channel, form.Get("thread_ts"))
	if !ok {
		return fail("thread_not_found")
	}
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = f.ID
		f.Completed, f.CompletedAt, f.Channel, f.ThreadTS = true, now, channel, parent
	}
	m := s.addMessageLocked(Message{Channel: channel, ThreadTS: parent, User: BotUserID(token), BotID: BotID(token),
		Text: form.Get("initial_comment"), Files: ids})
	for _, f := range files {
		f.MessageTS = m.TS
	}
	s.logf("files %v shared in %s as %s", ids, channel, m.TS)
	return s.completedLocked(files)
}

func (s *Server) completedLocked(files []*File) map[string]any {
	out := make([]map[string]string, len(files))
	for i, f := range files {
		out[i] = map[string]string{"id": f.ID, "title": f.Title}
	}
	return map[string]any{"ok": true, "files": out}
}

// fileInfoLocked answers files.info: a completed file with its shares
// (those younger than the share lag left out). A ticket never completed
// is no file yet: file_not_found, as for an id that never was.
func (s *Server) fileInfoLocked(_ string, form url.Values) map[string]any {
	f := s.fileLocked(form.Get("file"))
	switch {
	case f == nil || !f.Completed:
		return fail("file_not_found")
	case f.Deleted:
		return fail("file_deleted")
	}
	obj := s.fileObjectLocked(f)
	if f.MessageTS != "" && time.Since(f.CompletedAt) >= s.shareLag {
		share := map[string]any{"ts": f.MessageTS, "channel_name": "fake-" + strings.ToLower(f.Channel), "team_id": s.opts.TeamID,
			"reply_users": []string{}, "reply_users_count": 0, "reply_count": 0}
		if f.ThreadTS != "" {
			share["thread_ts"] = f.ThreadTS
		}
		kind := "public"
		if channelType(f.Channel) != "channel" {
			kind = "private"
		}
		obj["shares"] = map[string]any{kind: map[string]any{f.Channel: []any{share}}}
		obj["channels"] = []string{f.Channel}
	}
	return map[string]any{"ok": true, "file": obj, "comments": []any{}, "response_metadata": map[string]string{"next_cursor": ""}}
}

// fileObjectLocked is a file as the Web API and events render it.
func (s *Server) fileObjectLocked(f *File) map[string]any {
	created := f.CompletedAt.Unix()
	base := s.URL() + "/files-pri/" + s.opts.TeamID + "-" + f.ID + "/"
	name := url.PathEscape(f.Name)
	return map[string]any{
		"id": f.ID, "created": created, "timestamp": created, "name": f.Name, "title": f.Title,
		"mimetype": f.ContentType, "filetype": strings.TrimPrefix(path.Ext(f.Name), "."), "user": f.User,
		"user_team": s.opts.TeamID, "editable": false, "size": f.Size, "mode": "hosted", "is_external": false,
		"external_type": "", "is_public": channelType(f.Channel) == "channel", "public_url_shared": false,
		"url_private": base + name, "url_private_download": base + "download/" + name,
		"permalink": s.URL() + "/files/" + f.User + "/" + f.ID + "/" + name,
		"channels":  []string{}, "groups": []string{}, "ims": []string{}, "comments_count": 0, "has_more_shares": false,
	}
}

func (s *Server) fileLocked(id string) *File {
	for _, f := range s.files {
		if f.ID == id {
			return f
		}
	}
	return nil
}

func (s *Server) fileByTicketLocked(ticket string) *File {
	for _, f := range s.files {
		if f.ticket == ticket && ticket != "" {
			return f
		}
	}
	return nil
}

// filesJSONLocked renders a message's files, in order.
func (s *Server) filesJSONLocked(ids []string) []map[string]any {
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		if f := s.fileLocked(id); f != nil {
			out = append(out, s.fileObjectLocked(f))
		}
	}
	return out
}

// nextFileIDLocked has the shape of Slack's file ids: F and upper-case
// alphanumerics, unique.
func (s *Server) nextFileIDLocked() string {
	s.fileSeq++
	return fmt.Sprintf("F0FAKE%05d", s.fileSeq)
}

func parseLength(v string) (int64, error) {
	var n int64
	_, err := fmt.Sscan(v, &n)
	return n, err
}

// fileType is the mimetype the fake gives a file: the type it came with,
// unless that says nothing (application/octet-stream), else its name's
// extension's, else what its first bytes look like.
func fileType(given, name string, head []byte) string {
	if given != "" && given != "application/octet-stream" {
		return given
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return sniff(head)
}

func filesClone(in []*File) []File {
	out := make([]File, len(in))
	for i, f := range in {
		out[i] = *f
		out[i].content = nil
	}
	return out
}
