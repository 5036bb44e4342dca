// Package jswriter writes the ownership files' JSON exactly as the
// reference's JSON.stringify does, so what a reference reader compares byte
// for byte matches.
package jswriter

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Writer writes JSON exactly as JavaScript's JSON.stringify does for the
// values these records hold. encoding/json differs: it escapes <, >, & and
// U+2028/U+2029.
type Writer struct {
	b     []byte
	comma bool // a member was written at this level
}

func (w *Writer) Open() *Writer  { w.b = append(w.b, '{'); w.comma = false; return w }
func (w *Writer) Close() *Writer { w.b = append(w.b, '}'); w.comma = true; return w }

func (w *Writer) Key(k string) *Writer {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.Str(k)
	w.b = append(w.b, ':')
	w.comma = false
	return w
}

func (w *Writer) Int(n int64) { w.b = strconv.AppendInt(w.b, n, 10); w.comma = true }

func (w *Writer) Bool(v bool) { w.b = strconv.AppendBool(w.b, v); w.comma = true }

// Str quotes s as JSON.stringify does: the two-character escapes for
// \b \f \n \r \t " and \\, \u00xx (lower-case hex) for other control
// characters, everything else as is. Go strings may hold invalid UTF-8,
// which no JavaScript string can: each invalid byte becomes U+FFFD, which
// is also what reading it back produces.
func (w *Writer) Str(s string) {
	const hex = "0123456789abcdef"
	w.b = append(w.b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			w.b = append(w.b, '\\', '"')
		case r == '\\':
			w.b = append(w.b, '\\', '\\')
		case r == '\b':
			w.b = append(w.b, '\\', 'b')
		case r == '\f':
			w.b = append(w.b, '\\', 'f')
		case r == '\n':
			w.b = append(w.b, '\\', 'n')
		case r == '\r':
			w.b = append(w.b, '\\', 'r')
		case r == '\t':
			w.b = append(w.b, '\\', 't')
		case r < 0x20:
			w.b = append(w.b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			w.b = utf8.AppendRune(w.b, r) // utf8.RuneError for invalid bytes
		}
	}
	w.b = append(w.b, '"')
	w.comma = true
}

// New returns a Writer with room for about size bytes.
func New(size int) *Writer { return &Writer{b: make([]byte, 0, size)} }

// Bytes is what was written.
func (w *Writer) Bytes() []byte { return w.b }

// Float writes a finite f as JSON.stringify does for the common range:
// plain decimals, exponent form below 1e-6 and from 1e21 on (the form
// differs from JavaScript's only in where it switches, and reads back as
// the same double either way). -0 is written as 0, as JSON.stringify does.
func (w *Writer) Float(f float64) {
	if f == 0 {
		f = 0 // -0
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(w.b)
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 as 1e-7, the way JavaScript writes exponents.
		n := len(w.b) - start
		if n >= 4 && w.b[len(w.b)-4] == 'e' && w.b[len(w.b)-3] == '-' && w.b[len(w.b)-2] == '0' {
			w.b[len(w.b)-2] = w.b[len(w.b)-1]
			w.b = w.b[:len(w.b)-1]
		}
	}
	w.comma = true
}
