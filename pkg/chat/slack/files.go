package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/relay"
)

// Slack's limits on a bot's files: 1 GiB per file (files.upload's and
// the external upload's documented maximum), and one file per message
// here (each file part is its own message), 10 per outbox message.
const (
	MaxFileBytes = 1 << 30
	MaxFiles     = 10
)

// Files implements relay.Poster.
func (p *Poster) Files() relay.FileLimits {
	return relay.FileLimits{MaxBytes: MaxFileBytes, MaxFiles: MaxFiles, Service: "Slack"}
}

// postFile posts a file part in three steps, as Slack uploads files:
// files.getUploadURLExternal (a file id and an upload URL), the bytes to
// that URL, then files.completeUploadExternal, which shares the file in
// the session's thread. The file id is staged (durable in the journal)
// before the upload, so before anything can make the file visible: a
// lookup after a crash knows which file to ask files.info about.
// Completion is never repeated for a file id (Slack takes it once), and
// the part's remote id is the ts of the message that shares the file.
func (p *Poster) postFile(ctx context.Context, part relay.Part) (string, error) {
	u := part.Upload
	switch {
	case part.Stage == nil:
		return "", &relay.Error{Kind: relay.Refused, Err: fmt.Errorf("posting %s: a file part without Stage", part.Key)}
	case u.Size <= 0:
		return "", &relay.Error{Kind: relay.Refused, Err: fmt.Errorf("posting %s: Slack takes no empty file (%s)", part.Key, u.Name)}
	case u.Size > MaxFileBytes:
		return "", &relay.Error{Kind: relay.Refused, Err: fmt.Errorf("posting %s: %s is over Slack's 1 GiB per file", part.Key, u.Name)}
	}
	var ticket *slackapi.GetUploadURLExternalResponse
	err := p.call(ctx, "files.getUploadURLExternal", func() (err error) {
		ticket, err = p.api.GetUploadURLExternalContext(ctx, slackapi.GetUploadURLExternalParameters{FileName: u.Name, FileSize: int(u.Size)})
		return err
	})
	if err != nil {
		return "", p.fail("asking to upload "+part.Key, err)
	}
	if ticket == nil || ticket.FileID == "" || ticket.UploadURL == "" {
		return "", &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("slack asking to upload %s: no file id or upload URL in the answer", part.Key)}
	}
	if err := part.Stage(ctx, ticket.FileID); err != nil {
		return "", fmt.Errorf("staging file %s of %s: %w", ticket.FileID, part.Key, err)
	}
	if err := p.upload(ctx, ticket.UploadURL, u); err != nil {
		// Not completed, so shared nowhere: the lookup of the staged id
		// finds no file, and the part is posted afresh.
		return "", &relay.Error{Kind: relay.Uncertain, Err: scrub(fmt.Errorf("slack uploading %s: %w", part.Key, err), p.token)}
	}
	err = p.call(ctx, "files.completeUploadExternal", func() error {
		_, err := p.api.CompleteUploadExternalContext(ctx, slackapi.CompleteUploadExternalParameters{
			Files: []slackapi.FileSummary{{ID: ticket.FileID, Title: u.Name}}, Channel: p.channel, ThreadTimestamp: part.Thread,
		})
		return err
	})
	if err != nil {
		e := p.fail("sharing "+part.Key, err)
		if e.Code == "file_not_found" {
			// The upload did not take: nothing was shared.
			e.Kind, e.Reason = relay.Uncertain, ""
		}
		return "", p.inThread(ctx, part.Thread, e)
	}
	return p.awaitShare(ctx, part, ticket.FileID)
}

// awaitShare waits, up to Options.ShareWait, for files.info to show
// the share of a file Post completed. Every failure is Uncertain: the
// file was completed, so it is never posted again without a lookup.
func (p *Poster) awaitShare(ctx context.Context, part relay.Part, id string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.ShareWait)
	defer cancel()
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		ts, st, err := p.share(ctx, part, id)
		if st == shared {
			return ts, nil
		}
		if err != nil || !sleepCtx(ctx, wait) {
			return "", &relay.Error{Kind: relay.Uncertain,
				Err: fmt.Errorf("slack sharing %s: file %s completed, its share not seen yet: %w", part.Key, id, errors.Join(err, ctx.Err()))}
		}
	}
}

// lookupFile finds a file part's message by the file id staged before
// its upload: files.info, and the file's share in the session's thread.
// Slack discards an upload never completed, and files.info does not find
// it: that proves the part was never shared (not found; the relay still
// believes it only after Settle, as any lookup). A completed file whose
// share is not there yet (Slack shares asynchronously) is an error, so
// the relay asks again rather than post it twice. With nothing staged the
// part was never uploaded.
func (p *Poster) lookupFile(ctx context.Context, part relay.Part) (string, bool, error) {
	if part.Staged == "" {
		return "", false, nil
	}
	ts, st, err := p.share(ctx, part, part.Staged)
	switch {
	case err != nil:
		return "", false, err
	case st == notCompleted:
		return "", false, nil
	case st == unshared:
		return "", false, &relay.Error{Kind: relay.Uncertain,
			Err: fmt.Errorf("slack looking up %s: file %s was completed but is not shared in thread %s yet", part.Key, part.Staged, part.Thread)}
	}
	return ts, true, nil
}

// shareState is what files.info says of a file.
type shareState int

const (
	notCompleted shareState = iota // no such file: its upload was never completed
	unshared                       // completed, not (yet) shared in the part's thread
	shared
)

// share reads file id's shares (files.info): the ts of its message in
// the part's thread.
func (p *Poster) share(ctx context.Context, part relay.Part, id string) (string, shareState, error) {
	var f *slackapi.File
	err := p.call(ctx, "files.info", func() (err error) {
		f, _, _, err = p.api.GetFileInfoContext(ctx, id, 0, 0)
		return err
	})
	switch code, _ := slackCode(err); {
	case code == "file_not_found":
		return "", notCompleted, nil
	case code == "file_deleted":
		// Only the bot could delete a file it never completed: it was
		// shared, then deleted, as a part deleted after it was posted.
		// The thread's ts stands in for the message's, which is gone.
		return part.Thread, shared, nil
	case err != nil:
		return "", unshared, p.inThread(ctx, part.Thread, p.fail("reading file "+id+" of "+part.Key, err))
	case f == nil:
		return "", unshared, &relay.Error{Kind: relay.Uncertain, Err: fmt.Errorf("slack reading file %s: no file in the answer", id)}
	}
	for _, shares := range []map[string][]slackapi.ShareFileInfo{f.Shares.Public, f.Shares.Private} {
		for _, s := range shares[p.channel] {
			if s.ThreadTs == part.Thread || part.Thread == "" && s.ThreadTs == "" {
				return s.Ts, shared, nil
			}
		}
	}
	return "", unshared, nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// upload sends u's content to Slack's upload URL as a multipart file
// part, streamed from u.Open through a pipe, never held whole. The URL
// must be on Slack's file host (or the apiURL's host): it is a bare URL
// from an answer. No token goes with it: the URL is the credential.
func (p *Poster) upload(ctx context.Context, to string, u *relay.Upload) error {
	if err := p.fileHost(to); err != nil {
		return err
	}
	// The API call's timeout, and time for the bytes at 256 KiB/s at least.
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout+time.Duration(u.Size>>18)*time.Second)
	defer cancel()
	src, err := u.Open()
	if err != nil {
		return fmt.Errorf("opening %s: %w", u.Name, err)
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	written := make(chan struct{})
	// The writer ends before upload returns: closing pr fails its next
	// write, whatever the request read of it.
	defer func() { _ = pr.Close(); <-written }()
	go func() {
		defer close(written)
		defer src.Close()
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, u.Name))
		h.Set("Content-Type", u.ContentType)
		w, err := mw.CreatePart(h)
		if err == nil {
			var n int64
			n, err = io.Copy(w, io.LimitReader(src, u.Size+1))
			if err == nil && n != u.Size {
				err = fmt.Errorf("%s is %d bytes, not the %d recorded", u.Name, n, u.Size)
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to, pr)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := p.files.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload answered %s", resp.Status)
	}
	return nil
}

// fileHost refuses a URL that is not on Slack's own file host
// (https://files.slack.com), or with apiURL set, not on its host: the
// bot's token goes to downloads, and uploads go where Slack said.
func (p *Poster) fileHost(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("file URL: %w", err)
	}
	if p.apiURL != nil {
		if u.Scheme == p.apiURL.Scheme && strings.EqualFold(u.Host, p.apiURL.Host) {
			return nil
		}
		return fmt.Errorf("file URL on host %q, not the apiURL's %q", u.Host, p.apiURL.Host)
	}
	if u.Scheme == "https" && strings.EqualFold(u.Host, "files.slack.com") {
		return nil
	}
	return fmt.Errorf("file URL on host %q, not files.slack.com", u.Host)
}
