package ownership

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The records are untrusted input and the reference judges them with
// JavaScript's semantics, so values are kept as raw JSON text and judged
// the way JSON.parse followed by the reference's typeof/Number checks would:
// a number is the IEEE double nearest its text (so 1.0 and 1e0 are the
// integer 1, -0 is an integer, 1e400 is Infinity, and 9007199254740993 is
// 2^53, which is not a safe integer). strconv.ParseFloat rounds exactly as
// JavaScript does.

// maxSafeInteger is Number.MAX_SAFE_INTEGER, 2^53-1.
const maxSafeInteger = 1<<53 - 1

// member is one key of a JSON object and its raw value. The key is the
// decoded name (so "\u0070id" is "pid", as JSON.parse reads it), kept as
// bytes: most keys hold no escape and are a slice of the input.
type member struct {
	key []byte
	raw json.RawMessage
}

// object is a decoded JSON object: its members in file order.
type object []member

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if string(m.key) == key {
			return m.raw, true
		}
	}
	return nil, false
}

// errDuplicateKey: JSON.parse keeps the last of two equal keys, other
// readers the first. A record that two readers may read differently is
// not completely valid, so it is refused rather than resolved either way.
var errDuplicateKey = errors.New("duplicate key")

// parseObject decodes data as exactly one JSON object, with only
// whitespace around it as JSON.parse allows, and returns its members; the
// raw values are slices of data. The syntax is checked whole first
// (json.Valid, nested values included), so the split that follows can
// trust it: it is a plain scan, because records are read on every
// observation of every daemon.
func parseObject(data []byte) (object, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	obj := make(object, 0, 16)
	for i = skipSpace(data, i+1); data[i] != '}'; i = skipSpace(data, i) {
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		end := skipString(data, i)
		key, ok := decodeKey(data[i:end])
		if !ok {
			return nil, errors.New("not JSON: bad key")
		}
		if _, dup := obj.get(string(key)); dup {
			return nil, fmt.Errorf("%w %q", errDuplicateKey, key)
		}
		i = skipSpace(data, end) + 1 // the ':'
		i = skipSpace(data, i)
		end = skipValue(data, i)
		obj = append(obj, member{key, data[i:end:end]})
		i = end
	}
	return obj, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) && !strings.ContainsRune(",}] \t\n\r", rune(data[i])) {
		i++
	}
	return i
}

// decodeKey is decodeString for a key, without copying one that holds no
// escape and is valid UTF-8 (invalid bytes read as U+FFFD, as JavaScript
// reads the file).
func decodeKey(raw []byte) ([]byte, bool) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return raw[1 : len(raw)-1], true
	}
	s, ok := decodeString(raw)
	return []byte(s), ok
}

// decodeString decodes a raw JSON string. Most record strings hold no
// escapes and are valid UTF-8: those are taken as they are; the rest go
// through encoding/json, which turns invalid UTF-8 into U+FFFD.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	plain := utf8.Valid(body)
	for _, c := range body {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(body), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// jsType is JavaScript's typeof for a raw JSON value, with "null" and
// "array" told apart from "object" because every check here needs that.
func jsType(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "number"
}

// jsNumber returns the value JSON.parse gives a number: the nearest
// double, or ±Infinity when it overflows.
func jsNumber(raw json.RawMessage) (float64, bool) {
	if jsType(raw) != "number" {
		return 0, false
	}
	if n, ok := smallInt(raw); ok {
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false // not reachable for text the decoder accepted
	}
	return f, true // ErrRange: ±Inf, or an underflow to ±0, as in JavaScript
}

// smallInt parses the common case, a plain integer of at most 15 digits
// (exact as a double), without the allocation ParseFloat costs. -0 gives 0,
// which every check here treats as JavaScript treats -0.
func smallInt(raw []byte) (int64, bool) {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(raw) {
		n = -n
	}
	return n, true
}

func jsString(raw json.RawMessage) (string, bool) {
	if jsType(raw) != "string" {
		return "", false
	}
	return decodeString(raw)
}

func jsBool(raw json.RawMessage) (bool, bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func isFinite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

// isSafeInteger is Number.isSafeInteger.
func isSafeInteger(f float64) bool {
	return isFinite(f) && f == math.Trunc(f) && math.Abs(f) <= maxSafeInteger
}

// shown renders a raw value for an error message: shortened, on one line.
func shown(raw json.RawMessage) string {
	const max = 40
	if len(raw) > max {
		return OneLine(string(raw[:max])) + "..."
	}
	return OneLine(string(raw))
}
