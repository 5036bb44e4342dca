package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// InboxMessage is one file of a session's inbox: a reply from an
// authorized user, as it arrived in the session's thread (DESIGN 5,
// Inbound). Files are written once and never rewritten; the reader owns
// them from then on (it may delete what it has read).
type InboxMessage struct {
	// ID is the service's id of the message (Discord snowflake, Slack ts).
	ID      string `json:"id"`
	Session string `json:"session"`
	// User is the service's id of its author.
	User string `json:"user"`
	// Text is what the user wrote, plain: Slack's &amp; &lt; &gt; are
	// turned back into & < >; mentions are left as the service wrote them.
	Text string `json:"text"`
	// Ask, set on a decision (DESIGN 5, "Decisions"), is the id of the
	// ask it decides, which is its id too: an ask is decided once.
	Ask string `json:"ask,omitempty"`
	// Choice is a decision's choice: a label of the ask, or "expired".
	Choice string `json:"choice,omitempty"`
	// Files are the files attached to a reply, in the service's order,
	// each landed in the reply's files directory or skipped (DESIGN 5,
	// "Files").
	Files []InboxFile `json:"files,omitempty"`
	// TS is when the service says it was sent, RFC 3339 in UTC with
	// milliseconds (InboxTime).
	TS string `json:"ts"`
}

// InboxFile is one file attached to a reply.
type InboxFile struct {
	// Name is the file's name in the reply's files directory
	// (<ts>-<msgid>.files/), sanitized: one path element, unique in the
	// directory. As the service named it when it had to be changed:
	// Original.
	Name     string `json:"name"`
	Original string `json:"original,omitempty"`
	// Path is the file's path relative to the session's inbox directory;
	// "" when it was skipped.
	Path        string `json:"path,omitempty"`
	Size        int64  `json:"size"`
	ContentType string `json:"contentType,omitempty"`
	// Skipped says why the file is not there (over maxInboundFileBytes,
	// with its size; not from the service's own file host).
	Skipped string `json:"skipped,omitempty"`
}

// Limits of an inbox message. Discord texts are at most 4,000 characters
// and Slack's 40,000; the cap only keeps a hostile service from filling
// the disk.
const (
	MaxInboxText = 256 << 10
	// MaxInboxFiles is how many files one reply lists: more than any
	// service attaches to one message (Discord and Slack 10, Telegram 1).
	MaxInboxFiles = 20
	// maxInboxFileEntry bounds one file's listing encoded, each of its
	// strings capped (inboxfiles.go) and escaped at worst.
	maxInboxFileEntry = 5 << 10
	MaxInboxFileSize  = MaxInboxText + 16<<10 + MaxInboxFiles*maxInboxFileEntry
)

// InboxTimeLayout is the layout of InboxMessage.TS.
const InboxTimeLayout = "2006-01-02T15:04:05.000Z"

// InboxTime formats t as InboxMessage.TS does.
func InboxTime(t time.Time) string { return t.UTC().Format(InboxTimeLayout) }

// InboxFileName is the name of m's file in its session's inbox directory:
// <unix ms, 13 digits>-<id>.json, so names sort in the order the messages
// were sent and a message has one name, whatever delivered it.
func InboxFileName(m InboxMessage) (string, error) {
	t, err := time.Parse(InboxTimeLayout, m.TS)
	if err != nil {
		return "", fmt.Errorf("inbox message %q: ts: %w", m.ID, err)
	}
	return fmt.Sprintf("%013d-%s.json", t.UnixMilli(), m.ID), nil
}

// ValidInboxSession reports whether session can name an inbox directory:
// a session name (as the outbox takes it) that is not hidden, "." or "..".
func ValidInboxSession(session string) bool {
	return validToken(session, MaxSessionLen, true) && !strings.HasPrefix(session, ".")
}

// Validate returns one error per broken rule, in field order.
func (m InboxMessage) Validate() []error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	if !validToken(m.ID, MaxIDLen, false) {
		bad("id", "must match [A-Za-z0-9._-]{1,%d}", MaxIDLen)
	}
	if !ValidInboxSession(m.Session) {
		bad("session", "must match [A-Za-z0-9._:-]{1,%d} and not start with a dot", MaxSessionLen)
	}
	switch {
	case m.Ask != "":
		errs = append(errs, m.validateDecision()...)
	case m.Choice != "":
		bad("choice", "only a decision (with ask) has a choice")
	case !validToken(m.User, MaxRemoteLen, true):
		bad("user", "must match [A-Za-z0-9._:-]{1,%d}", MaxRemoteLen)
	}
	if !utf8.ValidString(m.Text) {
		bad("text", "must be valid UTF-8")
	} else if len(m.Text) > MaxInboxText {
		bad("text", "must be at most %d bytes", MaxInboxText)
	}
	t, err := time.Parse(InboxTimeLayout, m.TS)
	if err != nil || InboxTime(t) != m.TS {
		bad("ts", "must be RFC 3339 UTC with milliseconds, like 2026-01-02T15:04:05.000Z")
	} else if len(m.Files) > 0 {
		errs = append(errs, m.validateFiles()...)
	}
	return errs
}

var inboxFields = map[string]uint16{"id": 1 << 0, "session": 1 << 1, "user": 1 << 2, "text": 1 << 3, "ts": 1 << 4, "ask": 1 << 5, "choice": 1 << 6, "files": 1 << 7}

// EncodeInbox is the canonical file form of a valid inbox message: the
// same message always gives the same bytes.
func EncodeInbox(m InboxMessage) ([]byte, error) {
	if errs := m.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("inbox message %q: %w", m.ID, errors.Join(errs...))
	}
	if m.IsDecision() {
		return encode(decisionFile{m.ID, m.Session, m.User, m.Ask, m.Choice, m.TS})
	}
	return encode(m)
}

// decisionFile is a decision's file form: a reply's without its text
// (which a reply always has, even empty), and its user always, empty for
// an expired ask.
type decisionFile struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	User    string `json:"user"`
	Ask     string `json:"ask"`
	Choice  string `json:"choice"`
	TS      string `json:"ts"`
}

// DecodeInbox parses one inbox file strictly, as Decode does an outbox
// file: one JSON object, exactly the known fields, each once, valid UTF-8,
// at most MaxInboxFileSize bytes, then validated.
func DecodeInbox(data []byte) (InboxMessage, error) {
	if len(data) > MaxInboxFileSize {
		return InboxMessage{}, fmt.Errorf("inbox message is %d bytes, over %d", len(data), MaxInboxFileSize)
	}
	if !utf8.Valid(data) {
		return InboxMessage{}, errors.New("inbox message is not valid UTF-8")
	}
	var m InboxMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return InboxMessage{}, fmt.Errorf("inbox message: %w", err)
	}
	// Unmarshal folds the case of keys and lets a repeated key win.
	if err := checkKeysIn(bytes.TrimRight(data, "\n"), inboxFields); err != nil {
		return InboxMessage{}, fmt.Errorf("inbox message: %w", err)
	}
	if err := checkFileKeys(data); err != nil {
		return InboxMessage{}, fmt.Errorf("inbox message: %w", err)
	}
	if errs := m.Validate(); len(errs) > 0 {
		return InboxMessage{}, fmt.Errorf("inbox message: %w", errors.Join(errs...))
	}
	return m, nil
}
