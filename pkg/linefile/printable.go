package linefile

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable makes text read from an untrusted file safe to print on a
// terminal: control characters (an escape sequence could rewrite the
// screen, a carriage return hide what precedes it), the Unicode format
// characters that reorder text, and invalid UTF-8 are shown escaped, as
// Go writes them in a quoted string. Tabs are kept.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := fmt.Sprintf("%+q", string(r)) // "\x1b", "\u202e"
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r == utf8.RuneError || (r != '\t' && unicode.IsControl(r)) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}
