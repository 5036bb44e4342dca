package discord

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/inbound"
)

// cdnHosts are the hosts Discord serves attachments from.
var cdnHosts = []string{"cdn.discordapp.com", "media.discordapp.net"}

// fetchTimeout bounds one download, answer and content: a file of
// MaxFileBytes at 64 KiB a second, with room to spare.
const fetchTimeout = 3 * time.Minute

// Fetch implements inbound.Service. It downloads an attachment from
// Discord's CDN, which needs no credentials, so none is sent: the bot's
// token goes to Discord's API only. A URL on any other host (with apiURL
// set: on any other than the apiURL's) is refused before a request, and
// so is a redirect to one.
func (p *Poster) Fetch(ctx context.Context, f inbound.RemoteFile, max int64, w io.Writer) (int64, error) {
	u, err := url.Parse(f.URL)
	if err != nil || !p.fileHost(u) {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("attachment %s (%s) is not on Discord's CDN (%s): not downloaded", f.ID, f.Name, hostOf(f.URL))}
	}
	if f.Size > max {
		return 0, inbound.ErrTooLarge
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("attachment %s: %w", f.ID, err)}
	}
	resp, err := p.cdn.Do(req)
	if errors.Is(err, errOffCDN) {
		return 0, &inbound.PermanentError{Err: fmt.Errorf("downloading attachment %s: %w", f.ID, err)}
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text quotes the URL, signature and all
		}
		return 0, fmt.Errorf("downloading attachment %s from %s: %w", f.ID, u.Host, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusGone:
		// Deleted, or a link past its expiry: asking again gets the same.
		return 0, &inbound.PermanentError{Err: fmt.Errorf("downloading attachment %s: %s answered %d", f.ID, u.Host, resp.StatusCode)}
	default:
		return 0, fmt.Errorf("downloading attachment %s: %s answered %d", f.ID, u.Host, resp.StatusCode)
	}
	if resp.ContentLength > max {
		return 0, inbound.ErrTooLarge
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, max+1))
	switch {
	case n > max:
		return n, inbound.ErrTooLarge
	case err != nil:
		return n, fmt.Errorf("downloading attachment %s from %s: %w", f.ID, u.Host, err)
	}
	return n, nil
}

// fileHost says whether the bot downloads from u: Discord's CDN over
// https or, when apiURL is set, the apiURL's own scheme and host only (a
// proxy or a fake serving the CDN's paths; DESIGN 5, "Files").
func (p *Poster) fileHost(u *url.URL) bool {
	if u.User != nil || u.Host == "" {
		return false
	}
	if p.cfg.APIURL != "" {
		api, err := url.Parse(p.cfg.APIURL)
		return err == nil && api.Host != "" && u.Scheme == api.Scheme && strings.EqualFold(u.Host, api.Host)
	}
	if u.Scheme != "https" || (u.Port() != "" && u.Port() != "443") {
		return false
	}
	for _, h := range cdnHosts {
		if strings.EqualFold(u.Hostname(), h) {
			return true
		}
	}
	return false
}

// hostOf is the host of a URL for a message: never its path or query.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "no host"
}

// errOffCDN is a redirect away from the file hosts.
var errOffCDN = errors.New("a redirect off Discord's CDN: not followed")

// newCDNClient downloads attachments: its own transport (never the API's,
// which rewrites every host to apiURL, and adds no token), and no redirect
// off the file hosts.
func (p *Poster) newCDNClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = p.opts.Timeout
	return &http.Client{Transport: t, Timeout: fetchTimeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !p.fileHost(req.URL) {
			return fmt.Errorf("%w (to %s)", errOffCDN, req.URL.Host)
		}
		if len(via) >= 3 {
			return errors.New("more than 3 redirects")
		}
		return nil
	}}
}
