package fakeslack

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// serveUpload takes a file's bytes at the URL files.getUploadURLExternal
// gave, as Slack's upload URL does: the raw body, or the first file part
// of a multipart form (slack-go sends field "file"). The URL itself is the
// credential; no token is needed. The bytes are hashed as they arrive and
// not kept. A body cut short leaves the file not uploaded.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	ticket := r.PathValue("ticket")
	s.mu.Lock()
	f := s.fileByTicketLocked(ticket)
	spent := f != nil && f.Completed
	s.mu.Unlock()
	if f == nil || spent {
		http.Error(w, "upload not found", http.StatusNotFound)
		return
	}
	body, partType, err := uploadBody(r)
	if err != nil {
		http.Error(w, "bad upload: "+err.Error(), http.StatusBadRequest)
		return
	}
	h := sha256.New()
	head := &headBuffer{max: 512}
	n, err := io.Copy(io.MultiWriter(h, head), body)
	if err != nil {
		s.logf("file %s: upload cut after %d bytes: %v", f.ID, n, err)
		http.Error(w, "upload incomplete", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	f.Size, f.Sum, f.Uploaded = n, hex.EncodeToString(h.Sum(nil)), true
	f.ContentType = fileType(partType, f.Name, head.b)
	s.notifyLocked()
	s.mu.Unlock()
	s.logf("file %s: %d bytes uploaded", f.ID, n)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprintf(w, "OK - %d", n)
}

// uploadBody is the file's content in an upload request, with the type
// its multipart part declares ("" for a raw body).
func uploadBody(r *http.Request) (io.Reader, string, error) {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "multipart/") {
		return r.Body, "", nil
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return nil, "", fmt.Errorf("no file part: %w", err)
		}
		if p.FileName() != "" || p.FormName() == "file" {
			return p, p.Header.Get("Content-Type"), nil
		}
	}
}

// serveFile serves a user's file at its url_private(_download), to a bot
// token only, as files.slack.com does: without an accepted token (or
// without files:read) it redirects to the workspace's sign-in page with
// redir set to the file's path, as Slack does, where a client following
// it reads an HTML page instead of the file. A bot's own uploads are not
// kept, so not served (404).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	teamFile := r.PathValue("file")
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	allowed := s.checkTokenLocked(token, botToken) == "" && slices.Contains(s.grantedLocked(token), "files:read")
	id, _ := strings.CutPrefix(teamFile, s.opts.TeamID+"-")
	f := s.fileLocked(id)
	var content []byte
	var ctype string
	if f != nil {
		content, ctype = f.content, f.ContentType
	}
	s.mu.Unlock()
	if !allowed {
		http.Redirect(w, r, "/signin?redir="+url.QueryEscape(r.URL.Path), http.StatusFound)
		return
	}
	if f == nil || content == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(content)))
	_, _ = io.Copy(w, bytes.NewReader(content))
}

// serveSignIn is the page a file request without a bot token lands on.
func (s *Server) serveSignIn(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, "<html><body>Sign in to Fake Team</body></html>\n")
}

// headBuffer keeps the first max bytes written to it, for sniffing.
type headBuffer struct {
	b   []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func sniff(head []byte) string { return http.DetectContentType(head) }
