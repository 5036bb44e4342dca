package redact

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A token can be quoted so that it reads the same and matches nothing: an
// invisible character inside (a zero-width space, a soft hyphen), letters
// in full width, a dot written %2E. The patterns therefore run on a view
// of the text with those undone, and what they find is replaced in the
// text as it was: the rest of it stays byte for byte.

// view is a text as the patterns see it, with where each of its bytes
// came from.
type view struct {
	text string
	// from[i], to[i]: the bytes of the original that view byte i stands
	// for (a whole character, or a whole %XX).
	from, to []int
}

// normalized returns s's view; ok is false when the view is s itself
// (the common case, which needs no mapping). Each character is replaced
// by its compatibility decomposition (NFKD: full-width letters and
// digits become ASCII, a ligature its letters), invisible ones are
// dropped, and a %XX standing for a printable ASCII character is decoded.
func normalized(s string) (view, bool) {
	if !changes(s) {
		return view{}, false
	}
	v := view{from: make([]int, 0, len(s)), to: make([]int, 0, len(s))}
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		piece, n := viewOf(s[i:])
		for range len(piece) {
			v.from = append(v.from, i)
			v.to = append(v.to, i+n)
		}
		buf = append(buf, piece...)
		i += n
	}
	v.text = string(buf)
	return v, true
}

// changes reports whether the view of s differs from s.
func changes(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf && s[i] != '%' {
			i++
			continue
		}
		piece, n := viewOf(s[i:])
		if piece != s[i:i+n] {
			return true
		}
		i += n
	}
	return false
}

// viewOf returns what the first character of s (or a %XX) is in the
// view, and its length in s.
func viewOf(s string) (string, int) {
	if c, ok := percentByte(s); ok {
		return string(rune(c)), 3
	}
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case r < utf8.RuneSelf || r == utf8.RuneError && n == 1:
		return s[:n], n
	case invisible(r):
		return "", n // the characters around it meet
	}
	if d := norm.NFKC.PropertiesString(s).Decomposition(); d != nil {
		return string(d), n
	}
	return s[:n], n
}

// percentByte decodes a %XX at the start of s that stands for a printable
// ASCII character; a %00 or %0A is not decoded (nothing a token holds).
func percentByte(s string) (byte, bool) {
	if len(s) < 3 || s[0] != '%' {
		return 0, false
	}
	hi, ok1 := unhex(s[1])
	lo, ok2 := unhex(s[2])
	c := hi<<4 | lo
	return c, ok1 && ok2 && c >= 0x20 && c < 0x7f
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// invisible reports whether r is drawn as nothing: the format characters
// (zero-width space, joiners, soft hyphen, word joiner, BOM, bidi
// controls) and the other default-ignorable code points Unicode lists
// (variation selectors, the combining grapheme joiner, fillers).
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(ignorable, r)
}

// ignorable are the Default_Ignorable_Code_Point characters that are not
// in Cf.
var ignorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180b, Hi: 0x180f, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1},
	},
}
