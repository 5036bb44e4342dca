package redact

import (
	"path/filepath"
	"regexp"
	"strings"
)

// contentTokens are shapes that only chat content needs on top of tokens:
// an agent's text quotes secrets in more ways than a library's error does.
// Slack tokens of any type (xoxe- refresh tokens included) and Slack app
// tokens anywhere, even glued to a word ("TOKEN_xoxb-..."); a Discord bot
// token glued to a word (tokens' pattern wants a word boundary before
// it); webhook URLs, whose path is the secret; a bearer value in any
// case, and authorization values glued to a word too.
var contentTokens = []rule{
	{contains("xox"), regexp.MustCompile(`xox[a-z]-[A-Za-z0-9-]+`), Placeholder},
	{contains("xapp-"), regexp.MustCompile(`xapp-[A-Za-z0-9-]+`), Placeholder},
	{func(s string) bool { return strings.Count(s, ".") >= 2 },
		regexp.MustCompile(`[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}`), Placeholder},
	{contains("hooks.slack.com/"),
		regexp.MustCompile(`(hooks\.slack\.com/[a-z]+/)[A-Za-z0-9/_-]+`), "${1}" + Placeholder},
	{contains("/webhooks/"),
		regexp.MustCompile(`(discord(?:app)?\.com/api(?:/v[0-9]+)?/webhooks/[0-9]+/)[A-Za-z0-9_.-]+`), "${1}" + Placeholder},
	{func(s string) bool { return strings.Contains(strings.ToLower(s), "bearer") },
		regexp.MustCompile(`(?i)(bearer)\s+[A-Za-z0-9._~+/=-]{20,}`), "${1} " + Placeholder},
	{contains("Bot"), regexp.MustCompile(`(Bot)\s+[A-Za-z0-9._~+/=-]{20,}`), "${1} " + Placeholder},
}

// otherHome is a home directory of any user on Linux or macOS; the user
// name is what it would leak.
var otherHome = regexp.MustCompile("/(home|Users)/[^/\\s\"'`<>()\\[\\]{}|,;:*?]+")

// userPlaceholder replaces the user name in another user's home path.
const userPlaceholder = "[user]"

// Content scrubs a text bound for a chat service when a daemon's spec
// says redact: true (DESIGN 5), deterministically (the relay renders
// again after a crash and must get the same text):
//
//   - token-like strings, as Tokens, plus the shapes of contentTokens;
//   - home: the daemon user's home directory (absolute, not "/"; "" for
//     none) becomes "~" where it stands as a whole path component,
//     "/home/alice/src/x" giving "~/src/x";
//   - any other /home/<user> or /Users/<user> (and the daemon user's own
//     where it is glued to a longer path, "/mnt/home/alice") becomes
//     /home/[user] or /Users/[user]: the user name is what leaks, the
//     rest of the path stays readable.
//
// A token is found also with invisible characters inside it (zero-width
// space, soft hyphen), in full-width letters or with %XX escapes (a %2E
// for a dot): it is replaced from its first character to its last, the
// text around it kept byte for byte. A token broken across lines, or
// quoted in pieces, is not recognised;
// nor is a secret of a shape nothing here knows (a password in a URL
// query, a generic API key).
func Content(s, home string) string {
	s = applyAll(contentTokens, Tokens(s))
	s = ownHome(s, home)
	if strings.Contains(s, "/home/") || strings.Contains(s, "/Users/") {
		s = otherHome.ReplaceAllString(s, "/${1}/"+userPlaceholder)
	}
	return s
}

// ownHome replaces home with "~" wherever it is a whole path: not glued
// to a path before it, and ending the path or followed by "/".
func ownHome(s, home string) string {
	if home == "" {
		return s
	}
	home = filepath.Clean(home)
	if !filepath.IsAbs(home) || home == "/" {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	for from := 0; ; {
		i := strings.Index(s[from:], home)
		if i < 0 {
			break
		}
		i += from
		if (i == 0 || !pathByte(s[i-1])) && endsPath(s[i+len(home):]) {
			b.WriteString(s[done:i])
			b.WriteString("~")
			done = i + len(home)
			from = done
		} else {
			from = i + 1
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// pathByte reports whether b can be part of a path or file name (any
// byte of a multi-byte character counts, to stay on the safe side: the
// otherHome pass still hides the user).
func pathByte(b byte) bool {
	return nameByte(b) || b == '/' || b == '.' || b == '~'
}

func nameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '_' || b == '-' || b == '+' || b == '@' || b >= 0x80
}

// endsPath reports whether after, the text right after a home directory,
// leaves it a whole component: the end, a "/", or anything that is not a
// name (a "." counts as the end of a sentence unless a name follows it).
func endsPath(after string) bool {
	if after == "" {
		return true
	}
	c := after[0]
	if c == '.' {
		return len(after) == 1 || !nameByte(after[1]) && after[1] != '.'
	}
	return !nameByte(c)
}
