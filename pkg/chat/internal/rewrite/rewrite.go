// Package rewrite points a discordgo session at another endpoint (a proxy,
// a fake) and makes its errors name the host actually dialled.
package rewrite

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// host sends every request to base's scheme and host, keeping the path.
// It redirects one discordgo session to another endpoint (a proxy, a fake)
// without touching discordgo's process-wide Endpoint variables.
type host struct {
	base *url.URL
	next http.RoundTripper
}

// NewHost returns a RoundTripper that sends every request to apiURL's
// scheme and host through next.
func NewHost(apiURL string, next http.RoundTripper) (http.RoundTripper, error) {
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("apiURL is not an absolute URL")
	}
	return &host{base: u, next: next}, nil
}

func (r *host) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.base.Scheme, r.base.Host, r.base.Host
	return r.next.RoundTrip(req)
}

// discordAPIHost is the host discordgo builds every REST URL with, the one
// host replaces.
var discordAPIHost = func() string {
	u, _ := url.Parse(discordgo.EndpointDiscord)
	return u.Host
}()

// DialledErr makes an HTTP error name the host that was dialled. The client
// quotes the URL it was asked for (discord.com), not the one rewriteHost
// sent the request to, so a refused connection to a proxy or a fake would
// read as discord.com's. Only URLs of discordgo's API host are rewritten:
// the gateway's socket is dialled where /gateway said, and says so itself.
// The text changes, the chain does not: errors.Is and As see the original.
func DialledErr(err error, apiURL string) error {
	if err == nil || apiURL == "" {
		return err
	}
	base, perr := url.Parse(apiURL)
	var ue *url.Error
	if perr != nil || base.Host == "" || !errors.As(err, &ue) {
		return err
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil || u.Host != discordAPIHost {
		return err
	}
	u.Scheme, u.Host = base.Scheme, base.Host
	dialled := *ue
	dialled.URL = u.String()
	// Wrappers format their text when made: the quoted error is replaced
	// in the whole text, not in the url.Error alone.
	return &renamedError{msg: strings.Replace(err.Error(), ue.Error(), dialled.Error(), 1), err: err}
}

// renamedError is err with another text.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
