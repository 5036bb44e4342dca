package fakediscord

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Discord's limits on a message's files, as it takes them from a bot in a
// guild without boosts: 10 files, 10 MiB each.
const (
	MaxFiles     = 10
	MaxFileBytes = 10 << 20
)

// codeTooLarge is Discord's 413 for a file over the upload limit.
const codeTooLarge = 40005

// Attachment is a file attached to a message, as the fake stores it.
type Attachment struct {
	ID string
	// Filename is the name Discord shows and serves it under: the name it
	// was sent with, sanitized (safeFilename); Title is the name as sent
	// when sanitizing changed it, else "" (Discord's attachment "title").
	Filename, Title string
	ContentType     string
	Size            int64
	Sum             string // hex SHA-256 of the content
	Content         []byte
}

// Name is the name as it was sent.
func (a Attachment) Name() string {
	if a.Title != "" {
		return a.Title
	}
	return a.Filename
}

// File is a file a test attaches to an injected message (InjectMessage).
type File struct {
	Name, ContentType string
	Content           []byte
}

// upload is one files[n] part of a multipart message create.
type upload struct {
	index       int
	name        string
	contentType string
	content     []byte
}

// errTooLarge is a file over MaxFileBytes.
var errTooLarge = errors.New("file over the upload limit")

var filesPart = regexp.MustCompile(`^files\[([0-9]+)\]$`)

// readMultipart reads a multipart message create as Discord takes it: the
// JSON body in the part named payload_json, each file in a part named
// files[n] with its filename. Other parts are ignored.
func readMultipart(r *http.Request, v any) ([]upload, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	var files []upload
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		name := p.FormName()
		if name == "payload_json" {
			if err := json.NewDecoder(io.LimitReader(p, 1<<20)).Decode(v); err != nil {
				return nil, err
			}
			continue
		}
		m := filesPart.FindStringSubmatch(name)
		if m == nil || p.FileName() == "" {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		content, err := io.ReadAll(io.LimitReader(p, MaxFileBytes+1))
		if err != nil {
			return nil, err
		}
		if len(content) > MaxFileBytes {
			_, _ = io.Copy(io.Discard, r.Body)
			return nil, errTooLarge
		}
		files = append(files, upload{index: n, name: p.FileName(), contentType: p.Header.Get("Content-Type"), content: content})
	}
}

// attachmentsLocked makes the stored attachments of a message's files, in the
// order of their files[n] index.
func (s *Server) attachmentsLocked(files []upload) []Attachment {
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b upload) int { return a.index - b.index })
	out := make([]Attachment, 0, len(files))
	for _, f := range files {
		sum := sha256.Sum256(f.content)
		a := Attachment{ID: s.nextIDLocked(), Filename: safeFilename(f.name), ContentType: contentTypeOf(f.name, f.contentType),
			Size: int64(len(f.content)), Sum: hex.EncodeToString(sum[:]), Content: f.content}
		if a.Filename != f.name {
			a.Title = f.name
		}
		out = append(out, a)
	}
	return out
}

// safeFilename is a name as Discord serves it: characters other than
// ASCII letters, digits, '.', '-' and '_' are dropped, spaces become '_'.
// Discord documents only that the filename is "sanitized" when the name
// has special characters (and the attachment's title then keeps the name
// as sent); a client must not expect the name it sent back verbatim.
func safeFilename(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == ' ':
			b.WriteByte('_')
		case r < 128 && (r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

// contentTypeOf is the attachment's content_type: as the part said, else
// from the name's extension; "" when neither says.
func contentTypeOf(name, given string) string {
	if given != "" && given != "application/octet-stream" {
		return given
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return given
}

// apiAttachment is an attachment as Discord's message objects carry it.
type apiAttachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Title       string `json:"title,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Size        int64  `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
}

// apiAttachments are m's attachments, served by the fake as Discord's CDN
// serves them: /attachments/{channel}/{attachment}/{filename}, with the
// signature query Discord adds (its value is not checked).
func (s *Server) apiAttachments(m Message) []any {
	out := make([]any, 0, len(m.Attachments))
	for _, a := range m.Attachments {
		u := s.URL() + "/attachments/" + m.ChannelID + "/" + a.ID + "/" + url.PathEscape(a.Filename) + "?ex=0&is=0&hm=fake"
		out = append(out, apiAttachment{ID: a.ID, Filename: a.Filename, Title: a.Title, ContentType: a.ContentType, Size: a.Size, URL: u, ProxyURL: u})
	}
	return out
}

// serveAttachment is the CDN: GET /attachments/{cid}/{aid}/{name}, without
// a token (Discord's CDN takes none). A request that carries an
// Authorization header anyway is counted (Snapshot.TokensToCDN): a bot
// token has no business there.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if r.Header.Get("Authorization") != "" {
		s.tokensToCDN++
	}
	s.downloads++
	var found *Attachment
	if m := s.messageWithAttachmentLocked(r.PathValue("cid"), r.PathValue("aid")); m != nil {
		for i := range m.Attachments {
			if a := &m.Attachments[i]; a.ID == r.PathValue("aid") && a.Filename == r.PathValue("name") {
				found = a
			}
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	if found == nil {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	if found.ContentType != "" {
		w.Header().Set("Content-Type", found.ContentType)
	}
	w.Header().Set("Content-Length", strconv.FormatInt(found.Size, 10))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(found.Content)
}

// messageWithAttachmentLocked is the message in channel cid that carries
// attachment aid; nil when none does.
func (s *Server) messageWithAttachmentLocked(cid, aid string) *Message {
	for i := range s.messages {
		if s.messages[i].ChannelID != cid {
			continue
		}
		for _, a := range s.messages[i].Attachments {
			if a.ID == aid {
				return &s.messages[i]
			}
		}
	}
	return nil
}

// uploadsOf turns a test's files into the uploads of an injected message.
func uploadsOf(files []File) ([]upload, error) {
	if len(files) > MaxFiles {
		return nil, fmt.Errorf("fakediscord: %d files, Discord takes at most %d", len(files), MaxFiles)
	}
	out := make([]upload, 0, len(files))
	for i, f := range files {
		if f.Name == "" {
			return nil, fmt.Errorf("fakediscord: file %d has no name", i)
		}
		out = append(out, upload{index: i, name: f.Name, contentType: f.ContentType, content: f.Content})
	}
	return out, nil
}
