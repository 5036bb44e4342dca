package bus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxFileSize caps an outbox file: the largest text plus room for the
// other fields and JSON's escapes of a normal text. A text whose escapes
// push it past this is refused by Write, so Decode never sees one.
const MaxFileSize = MaxTextSize + 64<<10

var knownFields = map[string]bool{
	"id": true, "session": true, "event": true, "title": true,
	"text": true, "level": true, "replaces": true, "choices": true, "expiresAt": true,
	"attachments": true,
}

// Decode parses one outbox file strictly: one JSON object, no unknown
// field (names matched exactly, not case-folded as encoding/json would),
// valid UTF-8 throughout (encoding/json would silently replace invalid
// bytes), at most MaxFileSize bytes. Defaults are applied, then the
// message is validated.
func Decode(data []byte) (Message, error) {
	if len(data) > MaxFileSize {
		return Message{}, fmt.Errorf("message is %d bytes, over %d", len(data), MaxFileSize)
	}
	if !utf8.Valid(data) {
		return Message{}, errors.New("message is not valid UTF-8")
	}
	var raw map[string]json.RawMessage
	if err := decodeOne(data, &raw); err != nil {
		return Message{}, err
	}
	if raw == nil {
		return Message{}, errors.New("message: want a JSON object, got null")
	}
	for k := range raw {
		if !knownFields[k] {
			return Message{}, fmt.Errorf("message: unknown field %q", k)
		}
	}
	var m Message
	if err := decodeOne(data, &m); err != nil {
		return Message{}, err
	}
	m = m.WithDefaults()
	if errs := m.Validate(); len(errs) > 0 {
		return Message{}, fmt.Errorf("message: %w", errors.Join(errs...))
	}
	return m, nil
}

// decodeOne decodes exactly one JSON value from data into v.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("message: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("message: more than one JSON value")
	}
	return nil
}

// encode is the canonical file form of a valid message.
func encode(m any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Agent text is full of < > &: escaping them would triple its size
	// for no reader's benefit.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Encode is m, with its defaults, in the canonical encoding its
// MessageSum is taken of: how a message travels where no file carries it.
func Encode(m Message) ([]byte, error) { return encode(m.WithDefaults()) }
