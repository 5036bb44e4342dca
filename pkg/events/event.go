package events

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/redact"
)

// Types of events, as Kubernetes has them.
const (
	TypeNormal  = "Normal"
	TypeWarning = "Warning"
)

// Bounds of the history.
const (
	// MaxSize is the size past which the file is rotated.
	MaxSize = 1 << 20
	// Backups is how many rotated files are kept (.1 newest, .2 oldest).
	Backups = 2
	// MaxLine caps one event's line, newline included: an append is one
	// write of at most this.
	MaxLine = 4096
	// maxReason caps a reason (CamelCase words).
	maxReason = 128
)

// Event is one line of the history. Name is the daemon's; empty for what
// concerns the loop as a whole (a spec error).
type Event struct {
	Time    time.Time `json:"time"`
	Name    string    `json:"name"`
	Type    string    `json:"type"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
}

// namePattern is a daemon name (a DNS-1123 label), as the spec requires.
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// reasonPattern is a CamelCase reason.
var reasonPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

// check says what is wrong with an event read from the file; nil when
// nothing is.
func (e Event) check() error {
	switch {
	case e.Time.IsZero():
		return fmt.Errorf("no time")
	case e.Name != "" && !namePattern.MatchString(e.Name):
		return fmt.Errorf("name %q is not a daemon name", e.Name)
	case e.Type != TypeNormal && e.Type != TypeWarning:
		return fmt.Errorf("type %q is neither %s nor %s", e.Type, TypeNormal, TypeWarning)
	case len(e.Reason) > maxReason || !reasonPattern.MatchString(e.Reason):
		return fmt.Errorf("reason %q is not CamelCase (at most %d characters)", e.Reason, maxReason)
	case !utf8.ValidString(e.Message):
		return fmt.Errorf("message is not UTF-8")
	}
	return nil
}

// line encodes e as it is appended: its message redacted (the reconciler
// quotes daemons' error texts, which may carry what a library put in
// them) and cut so that the line fits in MaxLine.
func line(e Event) ([]byte, error) {
	e.Message = redact.Text(e.Message)
	e.Reason = cleanReason(e.Reason)
	for {
		data, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if len(data) < MaxLine {
			return append(data, '\n'), nil
		}
		if e.Message == "" {
			return nil, fmt.Errorf("event of %q over %d bytes with no message", e.Name, MaxLine)
		}
		// JSON escaping can grow a message up to six times: halve until it fits.
		if len(e.Message) <= len("…") {
			e.Message = ""
			continue
		}
		e.Message = cut(e.Message, len(e.Message)/2) + "…"
	}
}

// cleanReason makes a reason one that check accepts, so that no event
// written is skipped when read: letters and digits only, starting with a
// letter, capped.
func cleanReason(r string) string {
	if reasonPattern.MatchString(r) && len(r) <= maxReason {
		return r
	}
	var b []byte
	for i := 0; i < len(r) && len(b) < maxReason; i++ {
		c := r[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || len(b) > 0 && c >= '0' && c <= '9' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "Unknown"
	}
	return string(b)
}

// cut returns s's first n bytes or fewer, ending on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
