package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"gjc.dev/reconciler/pkg/relay"
)

// Discord's limits on a bot's files (its default upload limit, in a guild
// without boosts), the ones the relay enforces before any request.
const (
	MaxFileBytes = 10 << 20
	MaxFiles     = 10
)

// minUploadRate is the slowest upload a file part waits for: its request
// may take Timeout plus the file's size at this rate.
const minUploadRate = 64 << 10 // bytes a second

// Files implements relay.Poster.
func (p *Poster) Files() relay.FileLimits {
	return relay.FileLimits{MaxBytes: MaxFileBytes, MaxFiles: MaxFiles, Service: "Discord"}
}

// attachmentRef names files[n] in the payload, as Discord's reference
// describes the attachments of a message create.
type attachmentRef struct {
	ID       int    `json:"id"`
	Filename string `json:"filename"`
}

// uploadBody is a file part's payload_json: no content, no pings, no
// embeds, the part's nonce enforced as for a text part.
type uploadBody struct {
	Content         string          `json:"content"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
	Flags           int             `json:"flags"`
	Nonce           string          `json:"nonce"`
	EnforceNonce    bool            `json:"enforce_nonce"`
	Attachments     []attachmentRef `json:"attachments"`
}

// postFile posts a file part: one message in the part's thread carrying
// the file and nothing else, as one multipart request whose file is
// streamed from Upload.Open (never held whole), sent once.
func (p *Poster) postFile(ctx context.Context, part relay.Part) (string, error) {
	u := part.Upload
	ch := p.channelOf(part.Thread)
	head, tail, contentType, err := uploadForm(uploadBody{
		AllowedMentions: noMentions, Flags: flagSuppressEmbeds,
		Nonce: p.nonce(part.Thread, part.Key), EnforceNonce: true,
		Attachments: []attachmentRef{{ID: 0, Filename: u.Name}},
	}, u)
	if err != nil {
		return "", err
	}
	f, err := u.Open()
	if err != nil {
		return "", fmt.Errorf("opening %s to upload it: %w", u.Name, err)
	}
	defer f.Close()
	body := io.MultiReader(bytes.NewReader(head), &exactly{r: f, left: u.Size, name: u.Name}, bytes.NewReader(tail))
	length := int64(len(head)) + u.Size + int64(len(tail))
	timeout := p.opts.Timeout + time.Duration(u.Size/minUploadRate)*time.Second
	answer, err := p.send(ctx, http.MethodPost, discordgo.EndpointChannelMessages(ch), bucketOf(http.MethodPost, ch, "/messages"),
		contentType, []byte{}, timeout, streamed(body, length))
	if err != nil {
		return "", p.inThread(ctx, part.Thread, err)
	}
	return idOf(answer, "message")
}

// streamed makes the request's body r, length bytes long, instead of the
// bytes discordgo was given: the file goes out as it is read. The body
// cannot be replayed (GetBody nil), so nothing below resends it.
func streamed(r io.Reader, length int64) discordgo.RequestOption {
	return func(cfg *discordgo.RequestConfig) {
		cfg.Request.Body = io.NopCloser(r)
		cfg.Request.ContentLength = length
		cfg.Request.GetBody = nil
	}
}

var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// uploadForm is the multipart form of a message create with one file, as
// Discord takes it: the JSON in payload_json, the file in files[0]. head
// is everything before the file's content, tail everything after; only
// they are built in memory.
func uploadForm(payload uploadBody, u *relay.Upload) (head, tail []byte, contentType string, err error) {
	pj, err := json.Marshal(payload)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encoding the upload's payload: %w", err)
	}
	// Writes to a bytes.Buffer do not fail: the writer's errors are nil.
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	pw, _ := w.CreatePart(textproto.MIMEHeader{
		"Content-Disposition": {`form-data; name="payload_json"`},
		"Content-Type":        {"application/json"},
	})
	_, _ = pw.Write(pj)
	_, _ = w.CreatePart(textproto.MIMEHeader{
		"Content-Disposition": {`form-data; name="files[0]"; filename="` + quoteEscaper.Replace(u.Name) + `"`},
		"Content-Type":        {u.ContentType},
	})
	head = bytes.Clone(buf.Bytes())
	buf.Reset()
	_ = w.Close()
	return head, bytes.Clone(buf.Bytes()), w.FormDataContentType(), nil
}

// exactly reads r, which must hold left bytes: a file that shrank or grew
// since the relay recorded its size fails the request (its body then ends
// short or is cut), so other content never goes out under the part's key.
type exactly struct {
	r    io.Reader
	left int64
	name string
}

func (e *exactly) Read(b []byte) (int, error) {
	if e.left == 0 {
		var one [1]byte
		if n, _ := io.ReadFull(e.r, one[:]); n > 0 {
			return 0, fmt.Errorf("%s grew while it was uploaded", e.name)
		}
		return 0, io.EOF
	}
	if int64(len(b)) > e.left {
		b = b[:e.left]
	}
	n, err := e.r.Read(b)
	e.left -= int64(n)
	if errors.Is(err, io.EOF) {
		if e.left > 0 {
			return n, fmt.Errorf("%s shrank while it was uploaded: %w", e.name, io.ErrUnexpectedEOF)
		}
		err = nil
	}
	return n, err
}
