package bus

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// Events of a session.
const (
	EventMessage = "message"
	EventOpen    = "open"
	EventClose   = "close"
	// EventAsk is a question with buttons (DESIGN 5, "Decisions"): its id
	// is the ask id, and the first authorized click decides it.
	EventAsk = "ask"
)

// Levels of a message.
const (
	LevelInfo   = "info"
	LevelAction = "action"
	LevelError  = "error"
)

// Limits of DESIGN 5.
const (
	MaxIDLen      = 64
	MaxSessionLen = 128
	MaxTitleLen   = 256     // code points
	MaxTextSize   = 1 << 20 // bytes
)

// Message is one outbox file.
type Message struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	Event   string `json:"event"`
	Title   string `json:"title,omitempty"`
	Text    string `json:"text,omitempty"`
	Level   string `json:"level"`
	// Replaces is the id of an earlier message of the same session, to be
	// edited in place (progress updates).
	Replaces string `json:"replaces,omitempty"`
	// Choices are an ask's buttons, in order; only an ask has them.
	Choices []string `json:"choices,omitempty"`
	// ExpiresAt is when an undecided ask is decided "expired", as
	// InboxTime formats it; only an ask has it.
	ExpiresAt string `json:"expiresAt,omitempty"`
	// Attachments are files posted after the text, each once (DESIGN 5,
	// "Files"); only a message has them.
	Attachments []Attachment `json:"attachments,omitempty"`
}

// Equal reports whether m and o are the same message, field by field.
func (m Message) Equal(o Message) bool {
	return slices.Equal(m.Choices, o.Choices) && slices.Equal(m.Attachments, o.Attachments) && m.strip() == o.strip()
}

// messageKey is a message without its slices, which == can compare.
type messageKey struct {
	ID, Session, Event, Title, Text, Level, Replaces, ExpiresAt string
}

func (m Message) strip() messageKey {
	return messageKey{m.ID, m.Session, m.Event, m.Title, m.Text, m.Level, m.Replaces, m.ExpiresAt}
}

// WithDefaults returns m with an empty event and level set to their
// defaults (message, info).
func (m Message) WithDefaults() Message {
	if m.Event == "" {
		m.Event = EventMessage
	}
	if m.Level == "" {
		m.Level = LevelInfo
		if m.Event == EventAsk {
			// An ask waits for people: it is shown as an action, and a
			// lean daemon never leaves it out.
			m.Level = LevelAction
		}
	}
	return m
}

// FieldError says which field breaks which rule.
type FieldError struct{ Field, Rule string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

// Validate checks m as it stands (defaults not applied: an empty event or
// level is refused) and returns one error per broken rule, in field order.
func (m Message) Validate() []error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	if !ValidID(m.ID) {
		bad("id", "%s", IDRule)
	}
	if !validToken(m.Session, MaxSessionLen, true) {
		bad("session", "must match [A-Za-z0-9._:-]{1,%d}", MaxSessionLen)
	}
	switch m.Event {
	case EventMessage, EventOpen, EventClose, EventAsk:
	default:
		bad("event", "must be one of message, open, close, ask")
	}
	if !utf8.ValidString(m.Title) {
		bad("title", "must be valid UTF-8")
	} else if n := utf8.RuneCountInString(m.Title); n > MaxTitleLen {
		bad("title", "is %d characters, over %d", n, MaxTitleLen)
	}
	if !utf8.ValidString(m.Text) {
		bad("text", "must be valid UTF-8")
	} else if len(m.Text) > MaxTextSize {
		bad("text", "is %d bytes, over %d", len(m.Text), MaxTextSize)
	}
	switch m.Level {
	case LevelInfo, LevelAction, LevelError:
	default:
		bad("level", "must be one of info, action, error")
	}
	if m.Replaces != "" {
		if !ValidID(m.Replaces) {
			bad("replaces", "%s", IDRule)
		} else if m.Replaces == m.ID {
			bad("replaces", "must not be the message's own id")
		}
	}
	errs = append(errs, m.validateAsk()...)
	errs = append(errs, m.validateAttachments()...)
	return errs
}

// validToken reports whether s is 1..max bytes of [A-Za-z0-9._-], plus ':'
// when colon is set. Checked by hand: these run on every file of a busy
// outbox, and a byte loop says exactly what is allowed.
func validToken(s string, max int, colon bool) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '_', c == '-':
		case c == ':' && colon:
		default:
			return false
		}
	}
	return true
}
