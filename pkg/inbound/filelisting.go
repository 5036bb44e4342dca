package inbound

import (
	"fmt"
	"mime"
	"net/url"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
)

// How a reply's files are listed in its JSON (bus.InboxFile): pure
// functions of what the service said, each string bounded and safe to
// show.

// refusedURL says why a file's URL is not even handed to Fetch: the
// service's Fetch checks the host, and this keeps anything that is not
// a plain web URL (a file: or data: URL, credentials in it) from
// reaching one that checks less. "" is fine, as is no URL at all (the
// service finds the file by its id).
func refusedURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "not fetched: not an http(s) URL of a file host"
	}
	return ""
}

// withOriginal sets f's Original: the service's name, when sanitizing or
// a clash changed it, cut to what the inbox lists.
func withOriginal(f bus.InboxFile, original string) bus.InboxFile {
	if original != f.Name {
		f.Original = cutText(strings.ToValidUTF8(original, "\uFFFD"), 255)
	}
	return f
}

// contentType is the service's media type for a file, as the inbox
// lists it: parsed and formatted again, or "" when it does not parse or
// is too long to list.
func contentType(s string) string {
	mt, params, err := mime.ParseMediaType(s)
	if err != nil {
		return ""
	}
	out := mime.FormatMediaType(mt, params)
	if out == "" || len(out) > 255 {
		return ""
	}
	return out
}

// skipReason is why, as the inbox lists it: valid UTF-8, on one line,
// capped.
func skipReason(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return cutText(s, bus.MaxInboxFileSkipped)
}

// cutText is s, valid UTF-8, cut to at most max bytes at a character
// boundary.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") // drops a character cut in two
}

// overLimit says why a file of size bytes is skipped under limit:
// "12.0 MiB, over maxInboundFileBytes 10 MiB".
func overLimit(size, limit int64) string {
	return fileSize(size) + ", over maxInboundFileBytes " + limitSize(limit)
}

// fileSize is n bytes to one decimal in the largest binary unit it
// reaches; limitSize the same without the decimal when it is whole.
func fileSize(n int64) string {
	v, unit := scaled(n)
	if unit == "B" {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func limitSize(n int64) string {
	v, unit := scaled(n)
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func scaled(n int64) (float64, string) {
	switch {
	case n >= 1<<30:
		return float64(n) / (1 << 30), "GiB"
	case n >= 1<<20:
		return float64(n) / (1 << 20), "MiB"
	case n >= 1<<10:
		return float64(n) / (1 << 10), "KiB"
	}
	return float64(n), "B"
}
