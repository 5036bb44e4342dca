package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/relay"
)

// The Bot API's limits on a bot's files: sendDocument takes up to 50 MB
// a file (the reference's "50 MB", which the service counts in MiB, as
// it counts getFile's 20 MB: the Bot API server's 20 << 20); each file
// is a message of its own, so a message's attachments are as many
// messages (the relay's cap on a message's attachments).
const (
	maxUploadBytes   = 50 << 20
	maxDownloadBytes = 20 << 20
	maxFilesPerPost  = 10
)

// Files implements relay.Poster.
func (p *Poster) Files() relay.FileLimits {
	return relay.FileLimits{MaxBytes: maxUploadBytes, MaxFiles: maxFilesPerPost, Service: "Telegram"}
}

// captionOf is a file part's caption: the file's name, mention-safe as
// any text. The id probe edits a document's caption with exactly this
// (editMessageCaption): "message is not modified" proves the message
// is the bot's document with this caption, as "not modified" of a text
// proves it for a text part. It adds nothing the message does not show
// anyway, and is a pure function of the part, so a probe after a
// restart sends what the post sent.
func captionOf(u *relay.Upload) string { return safeText(u.Name) }

// postFile is Post of a file part: one sendDocument, its content
// streamed from u.Open into the multipart body (the client writes the
// form through a pipe as the request goes: the file is never held whole
// in memory), in the session's topic or as a reply to its root, with
// its caption (captionOf) and no parse mode.
func (p *Poster) postFile(ctx context.Context, part relay.Part) (string, error) {
	c := contentOf(part)
	params := &tgbot.SendDocumentParams{ChatID: p.chat, Caption: c.text}
	var err error
	params.MessageThreadID, params.ReplyParameters, err = p.placeIn(ctx, part.Thread)
	if err != nil {
		return "", err
	}
	p.probing.RLock()
	defer p.probing.RUnlock()
	if part.Thread == "" {
		p.creating.Lock()
		defer p.creating.Unlock()
	}
	var m *models.Message
	err = p.posting(ctx, func() error {
		body, err := part.Upload.Open()
		if err != nil {
			return &openError{err: err}
		}
		defer body.Close()
		params.Document = &models.InputFileUpload{Filename: part.Upload.Name, Data: &streamed{body}}
		ctx, cancel := context.WithTimeout(ctx, uploadTimeout(part.Upload.Size, p.opts.Timeout))
		defer cancel()
		m, err = p.uploads.SendDocument(ctx, params)
		return err
	})
	var open *openError
	if errors.As(err, &open) {
		return "", fmt.Errorf("telegram posting %s: opening %s: %w", part.Key, part.Upload.Name, open.err)
	}
	if err != nil {
		return "", p.fail("posting "+part.Key, err)
	}
	if m == nil || m.ID == 0 {
		return "", &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("posting %s: telegram answered without a message id", part.Key)}
	}
	p.remember(int64(m.ID), c.postedAs(part.Thread))
	return strconv.Itoa(m.ID), nil
}

// minUploadRate is the slowest link an upload is given time for: 50 MB
// take 200 s at it.
const minUploadRate = 256 << 10 // bytes a second

// uploadTimeout bounds one upload of size bytes: a request's timeout,
// and the time its bytes take at minUploadRate. A call's timeout alone
// would cut a large file on a slow link every time, each cut a lookup
// and a re-post that is cut again.
func uploadTimeout(size int64, timeout time.Duration) time.Duration {
	return timeout + time.Duration(size/minUploadRate+1)*time.Second
}

// openError is an upload's content that could not be opened: nothing
// was asked of the service, and the relay's own error says why.
type openError struct{ err error }

func (e *openError) Error() string { return e.err.Error() }
func (e *openError) Unwrap() error { return e.err }

// streamed hands the client an upload's content behind a pointer: the
// client checks its reader with reflect's IsNil, which panics on a
// struct value (io.NopCloser's), in a goroutine of its own.
type streamed struct{ r io.Reader }

func (s *streamed) Read(b []byte) (int, error) { return s.r.Read(b) }
