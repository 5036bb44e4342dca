// Package redact scrubs secrets out of texts that leave a process: error
// texts that reach a record, a status or an event. Deterministic, so the
// same text always reads the same after it.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Placeholder replaces a token-like string.
const Placeholder = "[redacted]"

// urlPattern ends a URL before trailing punctuation, which error texts put
// right after one.
var urlPattern = regexp.MustCompile(`(?:https?|wss?)://[^\s"'<>]*[^\s"'<>.,:;)]`)

// URLs drops the query and user info of every URL in s: a socket URL's
// query can carry a connection ticket, and libraries quote URLs in their
// errors.
func URLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlPattern.ReplaceAllStringFunc(s, func(raw string) string {
		u, err := url.Parse(raw)
		if err != nil {
			return "[url]"
		}
		u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
		return u.String()
	})
}

// tokens are the shapes of the credentials this project handles: Slack
// bot, user and app tokens, a Discord bot token (three base64url parts;
// its first part is the bot's id, so at least 17 digits' worth), and a
// Bearer or Bot authorization value of any shape (20 characters or more,
// so that "Bot restarted" stays as it is).
var tokens = []rule{
	{contains("xox"), regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]+`), Placeholder},
	{contains("xapp-"), regexp.MustCompile(`\bxapp-[A-Za-z0-9-]+`), Placeholder},
	{func(s string) bool { return strings.Count(s, ".") >= 2 },
		regexp.MustCompile(`\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}`), Placeholder},
	{func(s string) bool { return strings.Contains(s, "earer") || strings.Contains(s, "Bot") },
		regexp.MustCompile(`\b([Bb]earer|Bot)\s+[A-Za-z0-9._~+/=-]{20,}`), "${1} " + Placeholder},
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// Tokens replaces every token-like string in s with Placeholder (an
// authorization value keeps its scheme word, so the text still says what
// was there). A token is found also when an invisible character, full
// width letters or %XX escapes hide it (see rule.apply).
func Tokens(s string) string { return applyAll(tokens, s) }

// Text is URLs and Tokens: what an error text may carry of a secret.
func Text(s string) string { return Tokens(URLs(s)) }
