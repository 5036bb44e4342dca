package daemonlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/linefile"
)

// Renderer turns daemon.log lines into readable ones.
type Renderer struct {
	// Loc is the zone times are shown in (time.Local for people).
	Loc *time.Location
	// Omit drops a field whose value is the one given: the daemon's name
	// on every line of `reconciler logs NAME` says nothing.
	Omit map[string]string
}

// TimeLayout is how a line's time is shown.
const TimeLayout = "2006-01-02 15:04:05.000"

// Render renders one line. A JSON object with a message is a log entry;
// anything else is shown as it is, made safe to print.
func (r Renderer) Render(l linefile.Line) string {
	out, ok := r.entry(l.Text)
	if !ok {
		out = linefile.Printable(string(l.Text))
	}
	if l.Truncated {
		out += " …[line cut at its cap]"
	}
	return out
}

// field is one key and its raw JSON value, in the line's order.
type field struct {
	key string
	raw json.RawMessage
}

// entry renders a zap JSON line: "2026-01-02 15:04:05.000 INFO  message
// key=value ...". ok is false for a line that is not one.
func (r Renderer) entry(text []byte) (string, bool) {
	fields, ok := objectFields(text)
	if !ok {
		return "", false
	}
	var ts, level, msg string
	var haveMsg bool
	var rest []field
	for _, f := range fields {
		switch f.key {
		case "ts":
			ts = r.timeOf(f.raw)
		case "level":
			level = strings.ToUpper(stringOf(f.raw))
		case "msg":
			msg, haveMsg = stringOf(f.raw), true
		default:
			if want, ok := r.Omit[f.key]; ok && stringOf(f.raw) == want {
				continue
			}
			rest = append(rest, f)
		}
	}
	if !haveMsg {
		return "", false
	}
	var b strings.Builder
	if ts != "" {
		b.WriteString(ts)
		b.WriteByte(' ')
	}
	if level != "" {
		fmt.Fprintf(&b, "%-5s ", linefile.Printable(level))
	}
	b.WriteString(linefile.Printable(msg))
	for _, f := range rest {
		b.WriteByte(' ')
		b.WriteString(linefile.Printable(f.key))
		b.WriteByte('=')
		b.WriteString(valueOf(f.raw))
	}
	return b.String(), true
}

// objectFields decodes a JSON object's fields in order; ok is false for
// anything but one object.
func objectFields(text []byte) ([]field, bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := tok.(string)
		if !ok {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		out = append(out, field{key, raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // more after the object
	}
	return out, true
}

// timeOf reads zap's time: RFC 3339 (this project's) or epoch seconds
// (zap's default), shown in r.Loc; anything else is shown as it is.
func (r Renderer) timeOf(raw json.RawMessage) string {
	loc := r.Loc
	if loc == nil {
		loc = time.Local
	}
	var s string
	if isString(raw) && json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.In(loc).Format(TimeLayout)
		}
		return linefile.Printable(s)
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).In(loc).Format(TimeLayout)
	}
	return linefile.Printable(string(raw))
}

// stringOf is a JSON string's value, or the raw JSON of anything else.
func stringOf(raw json.RawMessage) string {
	var s string
	if isString(raw) && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// valueOf renders a field's value: a plain string bare, one with spaces,
// quotes or escapes quoted (Go syntax), anything else as compact JSON.
func valueOf(raw json.RawMessage) string {
	var s string
	if isString(raw) && json.Unmarshal(raw, &s) == nil {
		if s != "" && !strings.ContainsAny(s, " \t\"=\\") && linefile.Printable(s) == s {
			return s
		}
		return strconv.Quote(s)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return linefile.Printable(b.String())
	}
	return linefile.Printable(string(raw))
}

// isString: null would decode into a string too, as "".
func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }
