package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"unicode/utf8"
)

// The inbound journal is what a daemon's relay knows of the messages that
// came back from chat: which it landed in the inbox (so none lands
// twice), which got their reaction, and how far each thread's history was
// read. Same file rules and group commit as the relay journal; its own
// file, so neither side's compaction can drop the other's records.

// Ops of an InboundRecord.
const (
	// OpLanded: the message ID was accepted; its file (File, in Session's
	// inbox) is staged and, once this record is durable, published.
	OpLanded = "landed"
	// OpReacted: the message ID got its reaction (or never can).
	OpReacted = "reacted"
	// OpCursor: every message of Place up to and including ID was
	// handled (landed, or ignored for good): history reads resume after
	// it.
	OpCursor = "cursor"
	// OpAsk: ask ID was posted in Place (its session Session), its
	// buttons on message Remote, one per Choices; At is its expiresAt.
	OpAsk = "ask"
	// OpDecided: ask ID was decided, Choice by User (shown as Name; both
	// empty for an expired ask); its decision file (File, in Session's
	// inbox) is staged and, once this record is durable, published. At
	// is when.
	OpDecided = "decided"
	// OpOutcome: the message that edits ask ID to show its outcome is in
	// the outbox.
	OpOutcome = "outcome"
)

// InboundRecord is one line of the inbound journal.
type InboundRecord struct {
	Op      string `json:"op"`
	ID      string `json:"id"`
	Place   string `json:"place"` // Discord thread id, Slack root ts
	Session string `json:"session,omitempty"`
	File    string `json:"file,omitempty"`
	// At is the message's time at the service, unix ms: what ages a
	// record out of the journal.
	At int64 `json:"at"`
	// Of an ask (OpAsk, OpDecided): see the ops.
	Remote  string   `json:"remote,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Choice  string   `json:"choice,omitempty"`
	User    string   `json:"user,omitempty"`
	Name    string   `json:"name,omitempty"`
}

var inboundFields = map[string]uint16{
	"op": 1 << 0, "id": 1 << 1, "place": 1 << 2, "session": 1 << 3, "file": 1 << 4, "at": 1 << 5,
	"remote": 1 << 6, "choices": 1 << 7, "choice": 1 << 8, "user": 1 << 9, "name": 1 << 10,
}

// MaxNameLen caps a decider's display name as the journal keeps it.
const MaxNameLen = 128

// InboundJournalPath is where the inbound journal of the bus d lives.
func (d Dirs) InboundJournalPath() string { return filepath.Join(d.Dir, "inbound.journal") }

// ValidateInboundRecord checks r before it is written or after it is read.
func ValidateInboundRecord(r InboundRecord) error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Rule: fmt.Sprintf(format, a...)})
	}
	switch r.Op {
	case OpLanded, OpReacted, OpCursor, OpAsk, OpDecided, OpOutcome:
	default:
		bad("op", "must be one of %s, %s, %s, %s, %s, %s", OpLanded, OpReacted, OpCursor, OpAsk, OpDecided, OpOutcome)
	}
	if !validToken(r.ID, MaxIDLen, false) {
		bad("id", "must match [A-Za-z0-9._-]{1,%d}", MaxIDLen)
	}
	if !validToken(r.Place, MaxRemoteLen, true) {
		bad("place", "must match [A-Za-z0-9._:-]{1,%d}", MaxRemoteLen)
	}
	if r.At <= 0 {
		bad("at", "must be a time after 1970, in unix ms")
	}
	switch r.Op {
	case OpLanded, OpDecided:
		if !ValidInboxSession(r.Session) {
			bad("session", "must be a session name that is not hidden")
		}
		if !ValidInboxFile(r.File) || r.File[14:len(r.File)-len(".json")] != r.ID {
			bad("file", "must be <13 digits>-<id>.json for this record's id")
		}
	case OpAsk:
		if !ValidInboxSession(r.Session) {
			bad("session", "must be a session name that is not hidden")
		}
		if r.File != "" {
			bad("file", "only a %s or %s record names a file", OpLanded, OpDecided)
		}
	default:
		if r.Session != "" || r.File != "" {
			bad("session", "only a %s, %s or %s record names a session", OpLanded, OpAsk, OpDecided)
		}
	}
	errs = append(errs, r.validateAsk()...)
	return errors.Join(errs...)
}

// ParseInboundRecord decodes one inbound journal line strictly, as
// ParseRecord does a relay journal line.
func ParseInboundRecord(line []byte) (InboundRecord, error) {
	if len(line) >= MaxJournalLine {
		return InboundRecord{}, fmt.Errorf("line is %d bytes, over %d", len(line), MaxJournalLine-1)
	}
	if !utf8.Valid(line) {
		return InboundRecord{}, errors.New("not valid UTF-8")
	}
	var r InboundRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return InboundRecord{}, err
	}
	if err := checkKeysIn(line, inboundFields); err != nil {
		return InboundRecord{}, err
	}
	if err := ValidateInboundRecord(r); err != nil {
		return InboundRecord{}, err
	}
	return r, nil
}

// ReplayInboundJournal calls fn with each record of the inbound journal
// at path, in order, with ReplayJournal's rules.
func ReplayInboundJournal(path string, fn func(InboundRecord) error) error {
	return replayLines(path, func(line []byte) error {
		rec, err := ParseInboundRecord(line)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return fnError{err}
		}
		return nil
	})
}

// InboundJournal appends to an inbound journal, durably, with group
// commit (see Journal).
type InboundJournal struct{ j *Journal }

// OpenInboundJournal opens the inbound journal at path, as OpenJournal
// does the relay's.
func OpenInboundJournal(path string) (*InboundJournal, error) {
	j, err := OpenJournal(path)
	if err != nil {
		return nil, err
	}
	return &InboundJournal{j: j}, nil
}

// Append validates recs (nothing is written if one is invalid) and
// returns once they are durable.
func (j *InboundJournal) Append(ctx context.Context, recs ...InboundRecord) error {
	if len(recs) == 0 {
		return nil
	}
	lines, err := encodeInbound(recs)
	if err != nil {
		return fmt.Errorf("inbound journal append: %w", err)
	}
	return j.j.appendLines(ctx, lines, len(recs))
}

// Stats returns the counters since OpenInboundJournal.
func (j *InboundJournal) Stats() JournalStats { return j.j.Stats() }

// Close waits for what was handed to Append, then closes the file.
func (j *InboundJournal) Close() error { return j.j.Close() }

// RewriteInboundJournal compacts the inbound journal at path to exactly
// recs, with RewriteJournal's rules.
func RewriteInboundJournal(path string, recs []InboundRecord) error {
	data, err := encodeInbound(recs)
	if err != nil {
		return fmt.Errorf("rewrite inbound journal %s: %w", path, err)
	}
	return rewriteLines(path, data)
}

func encodeInbound(recs []InboundRecord) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range recs {
		if err := ValidateInboundRecord(r); err != nil {
			return nil, fmt.Errorf("inbound record %s %s: %w", r.Op, r.ID, err)
		}
		if err := enc.Encode(r); err != nil {
			return nil, fmt.Errorf("inbound record %s %s: %w", r.Op, r.ID, err)
		}
	}
	return buf.Bytes(), nil
}
