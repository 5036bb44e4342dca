package chat

import (
	"fmt"
	"net/http"
	"net/url"
)

// rewriteHost sends every request to base's scheme and host, keeping the path.
// It redirects one discordgo session to another endpoint (a proxy, a fake)
// without touching discordgo's process-wide Endpoint variables.
type rewriteHost struct {
	base *url.URL
	next http.RoundTripper
}

func newRewriteHost(apiURL string, next http.RoundTripper) (http.RoundTripper, error) {
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("apiURL is not an absolute URL")
	}
	return &rewriteHost{base: u, next: next}, nil
}

func (r *rewriteHost) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.base.Scheme, r.base.Host, r.base.Host
	return r.next.RoundTrip(req)
}
