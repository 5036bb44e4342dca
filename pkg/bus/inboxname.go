package bus

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The name a file attached to a reply gets in the reply's files directory
// (DESIGN 5, "Files"): the service's name is whatever the sender typed,
// and it must neither climb out of the directory, nor hide there, nor
// spoof its extension on a terminal. So the name is its base only (after
// the last '/' or '\'), invalid UTF-8 and control, format (bidi) and
// line-separator characters become '_', leading dots become '_', empty
// becomes "file", and it is cut to MaxInboxFileName bytes keeping its
// extension. Two files of one reply whose names fold to the same one
// (case-insensitive file systems hold one) become "name (2).ext".

// MaxInboxFileName is the longest name, in bytes, a file attached to a
// reply gets: the usual file system limit.
const MaxInboxFileName = 255

// SanitizeInboxFileName is the name the file the service calls name gets
// in a reply's files directory, before any clash is resolved.
func SanitizeInboxFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "_")
	name = strings.Map(func(r rune) rune {
		if unsafeNameRune(r) {
			return '_'
		}
		return r
	}, name)
	rest := strings.TrimLeft(name, ".")
	name = strings.Repeat("_", len(name)-len(rest)) + rest
	if name == "" {
		name = "file"
	}
	return cutFileName(name, "", MaxInboxFileName)
}

// unsafeNameRune: a character a file name shown on a terminal or in a
// listing must not hold.
func unsafeNameRune(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError
}

// cutFileName is name with suffix put before its extension, the base cut
// (at a character boundary) so the whole is at most max bytes. An
// extension too long to keep is cut with the rest.
func cutFileName(name, suffix string, max int) string {
	ext := path.Ext(name)
	if len(ext) > 32 || ext == name {
		ext = ""
	}
	base := strings.TrimSuffix(name, ext)
	room := max - len(suffix) - len(ext)
	for len(base) > room {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return base + suffix + ext
}

// UniqueInboxFileName is name, sanitized, made unique among used (keys
// folded by foldName), which it joins.
func UniqueInboxFileName(name string, used map[string]bool) string {
	name = SanitizeInboxFileName(name)
	out := name
	for k := 2; used[foldName(out)]; k++ {
		out = cutFileName(name, fmt.Sprintf(" (%d)", k), MaxInboxFileName)
	}
	used[foldName(out)] = true
	return out
}

// foldName is the key two names clash by: case-insensitive file systems
// (macOS's, by default) hold one file for both.
func foldName(name string) string { return strings.ToLower(name) }

// validInboxFileName reports whether name is one SanitizeInboxFileName
// gives for itself.
func validInboxFileName(name string) bool {
	return name != "" && SanitizeInboxFileName(name) == name
}
