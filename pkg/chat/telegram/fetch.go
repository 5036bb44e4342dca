package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"gjc.dev/reconciler/pkg/inbound"
)

// Fetch implements inbound.Service: getFile(f.ID), then GET
// <api>/file/bot<token>/<file_path>, the one place the service serves a
// bot's files from (the apiURL's host when set); f.URL is not read, and
// a RemoteFile that names one is not Telegram's. The token is in that
// URL: no error of Fetch carries the URL, and every error's text is
// scrubbed of the token all the same.
//
// Over max is inbound.ErrTooLarge: a size known from the update or from
// getFile is not fetched at all; a download is cut after max+1 bytes.
// The service serves bots files of at most 20 MB: a larger one is a
// *inbound.PermanentError, as is a file_id it does not know.
func (p *Poster) Fetch(ctx context.Context, f inbound.RemoteFile, max int64, w io.Writer) (int64, error) {
	if f.URL != "" {
		return 0, &inbound.PermanentError{Err: errors.New("telegram fetch: the file names a URL; telegram files are only fetched through getFile")}
	}
	if f.Size > max {
		return 0, inbound.ErrTooLarge
	}
	if f.Size > maxDownloadBytes {
		return 0, tooBigForBots(f.Size)
	}
	file, err := p.api.GetFile(ctx, &tgbot.GetFileParams{FileID: f.ID})
	if err != nil {
		err = p.scrub(fmt.Errorf("telegram getFile of %s: %w", f.Name, err))
		if errors.Is(err, tgbot.ErrorBadRequest) && !strings.Contains(err.Error(), "temporarily unavailable") {
			return 0, &inbound.PermanentError{Err: err} // an unknown file_id, a file too big for bots
		}
		return 0, err
	}
	if file.FileSize > max {
		return 0, inbound.ErrTooLarge
	}
	link, err := p.fileLink(file.FilePath)
	if err != nil {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("telegram getFile of %s: %w", f.Name, err)}
	}
	n, err := p.download(ctx, link, max, w)
	if err != nil && !errors.Is(err, inbound.ErrTooLarge) {
		err = p.scrub(fmt.Errorf("telegram downloading %s: %w", f.Name, err))
	}
	return n, err
}

// fileLink is where the service serves a file_path, or why the path is
// none it would give (a path that would leave /file/bot<token>/).
func (p *Poster) fileLink(path string) (string, error) {
	switch {
	case path == "":
		return "", errors.New("the service gave no file_path")
	case strings.HasPrefix(path, "/"), strings.Contains(path, ".."), strings.ContainsAny(path, "?#\\"):
		return "", errors.New("the service gave a file_path outside its file store")
	}
	return p.api.FileDownloadLink(&models.File{FilePath: path}), nil
}

// download copies link's content to w: at most max bytes, else
// ErrTooLarge once max+1 were written. Its errors never carry the link.
func (p *Poster) download(ctx context.Context, link string, max int64, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return 0, errors.New("the file's address does not parse")
	}
	resp, err := p.files.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error's text names the URL, and the URL the token
		}
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("the file host answered %s", resp.Status)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, max+1))
	if n > max {
		return n, inbound.ErrTooLarge
	}
	return n, err
}

// newFileClient is the client of downloads: a request bounded by ctx
// (a file takes as long as it takes), its answer's headers by timeout,
// and no redirect followed: a file comes from the service's file host
// or not at all.
func newFileClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = timeout
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func tooBigForBots(size int64) error {
	return &inbound.PermanentError{Err: fmt.Errorf("telegram serves bots files of at most 20 MB, this one is %d bytes", size)}
}
