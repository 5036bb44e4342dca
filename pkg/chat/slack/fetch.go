package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/inbound"
)

// Fetch implements inbound.Service: a GET of the file's
// url_private_download with the bot token in Authorization: Bearer, sent
// only to Slack's own file host (files.slack.com, or the apiURL's host
// when one is set): a URL anywhere else (an external file's) is a
// *inbound.PermanentError and nothing is requested. A file Slack names
// without a URL (a Slack Connect file, "check_file_info") is read with
// files.info first. No redirect is followed: files.slack.com redirects a
// token that cannot read the file to the sign-in page.
func (p *Poster) Fetch(ctx context.Context, f inbound.RemoteFile, limit int64, w io.Writer) (int64, error) {
	where := f.URL
	if where == "" {
		u, err := p.fileURL(ctx, f.ID)
		if err != nil {
			return 0, err
		}
		where = u
	}
	if err := p.fileHost(where); err != nil {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("slack file %s (%s): %w", f.ID, f.Name, err)}
	}
	// The API call's timeout, and time for the bytes at 256 KiB/s at least.
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout+time.Duration(limit>>18)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("slack file %s: %w", f.ID, err)}
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := p.files.Do(req)
	if err != nil {
		return 0, scrub(fmt.Errorf("slack fetching file %s: %w", f.ID, err), p.token)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return 0, &inbound.PermanentError{Err: fmt.Errorf("slack file %s (%s) is gone: %s", f.ID, f.Name, resp.Status)}
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		// The sign-in page: the token may not read files (files:read), a
		// configuration to fix, so the reply stays owed meanwhile.
		return 0, fmt.Errorf("slack file %s: redirected to sign in (%s): does the bot token hold files:read?", f.ID, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("slack fetching file %s: %s", f.ID, resp.Status)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	switch {
	case n > limit:
		return n, inbound.ErrTooLarge
	case err != nil:
		return n, scrub(fmt.Errorf("slack fetching file %s: %w", f.ID, err), p.token)
	}
	return n, nil
}

// fileURL is a file's url_private_download as files.info tells it.
func (p *Poster) fileURL(ctx context.Context, id string) (string, error) {
	var file *slackapi.File
	err := p.call(ctx, "files.info", func() (err error) {
		file, _, _, err = p.api.GetFileInfoContext(ctx, id, 0, 0)
		return err
	})
	if code, _ := slackCode(err); code == "file_not_found" || code == "file_deleted" || code == "not_visible" {
		return "", &inbound.PermanentError{Err: p.fail("reading file "+id, err)}
	}
	if err != nil {
		return "", p.fail("reading file "+id, err)
	}
	if file == nil || file.URLPrivateDownload == "" {
		return "", &inbound.PermanentError{Err: errors.New("slack file " + id + ": no download URL")}
	}
	return file.URLPrivateDownload, nil
}

// remoteFiles are a message's files as the inbound side takes them. A
// file Slack describes only by id (file_access check_file_info) has no
// URL or size yet: Fetch asks files.info.
func remoteFiles(files []slackapi.File) []inbound.RemoteFile {
	var out []inbound.RemoteFile
	for _, f := range files {
		r := inbound.RemoteFile{ID: f.ID, Name: f.Name, Size: int64(f.Size), ContentType: f.Mimetype, URL: f.URLPrivateDownload}
		if r.Name == "" {
			r.Name = f.Title
		}
		if r.URL == "" {
			r.URL = f.URLPrivate // an external file's is elsewhere: Fetch refuses it
		}
		if f.FileAccess == "check_file_info" || r.URL == "" && r.Size == 0 {
			r.Size, r.URL = -1, ""
		}
		out = append(out, r)
	}
	return out
}
