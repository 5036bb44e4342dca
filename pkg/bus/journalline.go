package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxJournalLine caps one journal line, newline included. The largest
// legal record is an attempt of a Slack part: 3,900 code points, each at
// most 6 bytes once encoded (a 4-byte code point is written as is; a
// control character or U+2028 becomes a 6-byte \uXXXX escape), so about
// 23 KiB, plus the fence a split closes and reopens and under 1 KiB of
// other fields. 64 KiB leaves more than twice that, and is the project's
// cap for any file read: a longer line is not ours and is refused before
// it is decoded.
const MaxJournalLine = 64 << 10

// MaxRemoteLen caps a service id (Remote, Thread): Discord snowflakes and
// Slack timestamps are about 20 bytes.
const MaxRemoteLen = 128

// MaxParts caps how many text parts one message can be split into: the
// largest text (MaxTextSize bytes, so at most that many code points) cut
// into the smallest parts a service allows would need fewer.
const MaxParts = MaxTextSize / 1000

// ValidateRecord checks r before it is written or after it is read: a
// known op, a message id, a part name, a session, the fields the op needs.
func ValidateRecord(r Record) error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	if r.Op != OpAttempt && r.Op != OpDone && r.Op != OpStage {
		bad("op", "must be %s, %s or %s", OpAttempt, OpDone, OpStage)
	}
	if !validToken(r.ID, MaxIDLen, false) {
		bad("id", "must match [A-Za-z0-9._-]{1,%d}", MaxIDLen)
	}
	index, text, ok := parsePart(r.Part)
	if !ok {
		bad("part", "must be N, edit:N (N a decimal index below %d), %s, %s (each optionally :G, a generation from 1), %s, file:K (K below %d) or %s", MaxParts, PartRoot, PartThread, PartArchive, MaxAttachments, PartFileText)
	}
	if !validToken(r.Session, MaxSessionLen, true) {
		bad("session", "must match [A-Za-z0-9._:-]{1,%d}", MaxSessionLen)
	}
	if r.Thread != "" && !validToken(r.Thread, MaxRemoteLen, true) {
		bad("thread", "must match [A-Za-z0-9._:-]{1,%d}", MaxRemoteLen)
	}
	if r.Remote != "" && !validToken(r.Remote, MaxRemoteLen, true) {
		bad("remote", "must match [A-Za-z0-9._:-]{1,%d}", MaxRemoteLen)
	}
	if r.After != "" && !validToken(r.After, MaxRemoteLen, true) {
		bad("after", "must match [A-Za-z0-9._:-]{1,%d}", MaxRemoteLen)
	}
	if r.Sum != "" && !validSum(r.Sum) {
		bad("sum", "must be 64 lowercase hex digits")
	}
	if (r.Op == OpDone || r.Op == OpStage) && r.Remote == "" {
		bad("remote", "is required by a %s record", r.Op)
	}
	errs = append(errs, validateFileFields(r)...)
	if !utf8.ValidString(r.Text) {
		bad("text", "must be valid UTF-8")
	}
	switch {
	case r.Parts < 0 || r.Parts > MaxParts:
		bad("parts", "must be 0..%d", MaxParts)
	case ok && text && r.Op == OpAttempt && r.Parts < 1:
		bad("parts", "is required (>= 1) by an attempt of a text part")
	case ok && text && r.Parts > 0 && index >= r.Parts:
		bad("part", "index %d is not below parts %d", index, r.Parts)
	}
	if r.At < 0 {
		bad("at", "must not be negative")
	}
	if len(errs) > 0 {
		return fmt.Errorf("journal record %s: %w", r.Key(), errors.Join(errs...))
	}
	return nil
}

// validSum reports whether s is a hex SHA-256, as MessageSum makes it.
func validSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parsePart returns the index of a text part ("N", text set) or of an
// edit ("edit:N"); ok is false for anything but those and the named
// parts. An index has no sign and no leading zero, so each part has
// exactly one spelling and a Key names it uniquely.
func parsePart(p string) (index int, text, ok bool) {
	if p == PartArchive {
		return 0, false, true
	}
	if _, ok := ParseFilePart(p); ok {
		return 0, false, true
	}
	if _, _, ok := ParsePlacePart(p); ok {
		return 0, false, true
	}
	s, isEdit := strings.CutPrefix(p, "edit:")
	n, ok := decimal(s)
	if !ok || n >= MaxParts {
		return 0, false, false
	}
	return n, !isEdit, true
}

// decimal reads a part's number: at most 7 digits, no sign, no leading
// zero, so each number has exactly one spelling.
func decimal(s string) (int, bool) {
	if s == "" || len(s) > 7 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// encodeRecords validates recs and returns their journal lines: compact
// JSON, one object per line, no HTML escaping (rendered text is full of
// < > &), each line within MaxJournalLine.
func encodeRecords(recs []Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := ValidateRecord(r); err != nil {
			return nil, err
		}
		start := buf.Len()
		if err := enc.Encode(r); err != nil {
			return nil, fmt.Errorf("journal record %s: %w", r.Key(), err)
		}
		if n := buf.Len() - start; n > MaxJournalLine {
			return nil, fmt.Errorf("journal record %s: line is %d bytes, over %d", r.Key(), n, MaxJournalLine)
		}
	}
	return buf.Bytes(), nil
}

// recordFields are the JSON names of Record's fields, each with its bit
// for the duplicate check.
var recordFields = map[string]uint16{
	"op": 1 << 0, "id": 1 << 1, "part": 1 << 2, "session": 1 << 3, "thread": 1 << 4,
	"text": 1 << 5, "parts": 1 << 6, "remote": 1 << 7, "at": 1 << 8,
	"after": 1 << 9, "sum": 1 << 10, "file": 1 << 11, "name": 1 << 12,
	"contentType": 1 << 13, "size": 1 << 14, "fileSum": 1 << 15,
}

var lineSep, paraSep = []byte("\u2028"), []byte("\u2029")

// ParseRecord decodes one journal line (without its newline) strictly:
// valid UTF-8, one JSON object and nothing after it, every key exactly
// one of Record's (encoding/json alone would fold case and let a repeated
// key win silently), no null, the right types, then ValidateRecord.
func ParseRecord(line []byte) (Record, error) {
	if len(line) >= MaxJournalLine {
		return Record{}, fmt.Errorf("line is %d bytes, over %d", len(line), MaxJournalLine-1)
	}
	if !utf8.Valid(line) {
		return Record{}, errors.New("not valid UTF-8")
	}
	if bytes.Contains(line, lineSep) || bytes.Contains(line, paraSep) {
		// encoding/json always escapes these two, so no journal line of
		// ours holds them raw; refusing them keeps every accepted line at
		// least as long as its record's own encoding, within the cap.
		return Record{}, errors.New("raw U+2028 or U+2029: not written by a journal")
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, err
	}
	if err := checkKeys(line); err != nil {
		return Record{}, err
	}
	if err := ValidateRecord(r); err != nil {
		return Record{}, err
	}
	return r, nil
}

// checkKeys walks the top-level keys of line, which json.Unmarshal has
// already accepted into a Record: so it is one object whose values are
// strings or numbers (or null), and only keys and nulls need a look.
func checkKeys(line []byte) error { return checkKeysIn(line, recordFields) }

// checkKeysIn is checkKeys for an object whose known keys are fields,
// each with its own bit, and which json.Unmarshal has already accepted
// into a struct of string and number fields.
func checkKeysIn(line []byte, fields map[string]uint16) error {
	var seen uint16
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return errors.New("want a JSON object")
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return nil
	}
	for i < len(line) {
		end := stringEnd(line, i)
		raw := line[i:end]
		// Indexing the map with string(bytes) does not allocate: this runs
		// for every key of every line at start-up.
		bit, known := fields[string(raw[1:len(raw)-1])]
		if bytes.IndexByte(raw, '\\') >= 0 {
			var key string
			if err := json.Unmarshal(raw, &key); err != nil {
				return err
			}
			bit, known = fields[key]
		}
		switch {
		case !known:
			return fmt.Errorf("unknown field %s", raw)
		case seen&bit != 0:
			return fmt.Errorf("field %s repeated", raw)
		}
		seen |= bit
		i = skipSpace(line, end)
		i = skipSpace(line, i+1) // the colon
		switch {
		case line[i] == 'n':
			return fmt.Errorf("field %s is null", raw)
		case line[i] == '"':
			i = stringEnd(line, i)
		case line[i] == '[':
			// An array of strings (an ask's choices), already decoded
			// whole by json.Unmarshal: only its end is looked for here.
			i = arrayEnd(line, i)
		default:
			for i < len(line) && line[i] != ',' && line[i] != '}' && !isSpace(line[i]) {
				i++
			}
		}
		i = skipSpace(line, i)
		if line[i] == '}' {
			return nil
		}
		i = skipSpace(line, i+1) // the comma
	}
	return errors.New("unterminated object")
}

// arrayEnd returns the index just past the JSON array starting at i,
// skipping the strings in it (which may hold brackets).
func arrayEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = stringEnd(b, j) - 1
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// stringEnd returns the index just past the JSON string starting at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
