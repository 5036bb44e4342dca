package chat

import (
	"net/url"
	"regexp"
)

// urlPattern ends a URL before trailing punctuation, which error texts put
// right after one.
var urlPattern = regexp.MustCompile(`(?:https?|wss?)://[^\s"'<>]*[^\s"'<>.,:;)]`)

// redactURLs drops the query and user info of every URL in an error text
// before it reaches state.json (and so status): a socket URL's query can
// carry a connection ticket, and libraries quote URLs in their errors.
func redactURLs(s string) string {
	return urlPattern.ReplaceAllStringFunc(s, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return "[url]"
		}
		u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
		return u.String()
	})
}
