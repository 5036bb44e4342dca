package bus

import (
	"errors"
	"strings"
	"testing"
)

func valid() Message {
	return Message{ID: "01J0ABC", Session: "agent:s-1", Event: EventMessage, Level: LevelInfo, Title: "t", Text: "hello"}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Message)
		field  string // "" means valid
	}{
		{"valid", func(*Message) {}, ""},
		{"all events and levels", func(m *Message) { m.Event, m.Level = EventClose, LevelError }, ""},
		{"open action", func(m *Message) { m.Event, m.Level = EventOpen, LevelAction }, ""},
		{"id of 64", func(m *Message) { m.ID = strings.Repeat("a", 64) }, ""},
		{"id charset", func(m *Message) { m.ID = "A-z_0.9" }, ""},
		{"empty id", func(m *Message) { m.ID = "" }, "id"},
		{"id of 65", func(m *Message) { m.ID = strings.Repeat("a", 65) }, "id"},
		{"id with colon", func(m *Message) { m.ID = "a:b" }, "id"},
		{"id with slash", func(m *Message) { m.ID = "../x" }, "id"},
		{"id non-ascii", func(m *Message) { m.ID = "é" }, "id"},
		// <id>.json would be a temp name, which no consumer reads.
		{"id starting with a dot", func(m *Message) { m.ID = ".x" }, "id"},
		{"id dot", func(m *Message) { m.ID = "." }, "id"},
		{"id dot dot", func(m *Message) { m.ID = ".." }, "id"},
		{"id with a dot inside and at the end", func(m *Message) { m.ID = "a.b." }, ""},
		{"replaces starting with a dot", func(m *Message) { m.Replaces = ".x" }, "replaces"},
		{"session of 128", func(m *Message) { m.Session = strings.Repeat("s", 128) }, ""},
		{"session of 129", func(m *Message) { m.Session = strings.Repeat("s", 129) }, "session"},
		{"empty session", func(m *Message) { m.Session = "" }, "session"},
		{"session with space", func(m *Message) { m.Session = "a b" }, "session"},
		{"unknown event", func(m *Message) { m.Event = "post" }, "event"},
		{"empty event", func(m *Message) { m.Event = "" }, "event"},
		{"unknown level", func(m *Message) { m.Level = "warn" }, "level"},
		{"title of 256 code points", func(m *Message) { m.Title = strings.Repeat("é", 256) }, ""},
		{"title of 257 code points", func(m *Message) { m.Title = strings.Repeat("é", 257) }, "title"},
		{"title invalid utf-8", func(m *Message) { m.Title = "\xff" }, "title"},
		{"text of 1 MiB", func(m *Message) { m.Text = strings.Repeat("x", MaxTextSize) }, ""},
		{"text over 1 MiB", func(m *Message) { m.Text = strings.Repeat("x", MaxTextSize+1) }, "text"},
		{"text invalid utf-8", func(m *Message) { m.Text = "ok\xc3(" }, "text"},
		{"replaces", func(m *Message) { m.Replaces = "01J0ABB" }, ""},
		{"replaces bad syntax", func(m *Message) { m.Replaces = "a/b" }, "replaces"},
		{"replaces itself", func(m *Message) { m.Replaces = m.ID }, "replaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valid()
			tt.mutate(&m)
			errs := m.Validate()
			if tt.field == "" {
				if len(errs) != 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one error on %s, got %v", tt.field, errs)
			}
			var fe *FieldError
			if !errors.As(errs[0], &fe) || fe.Field != tt.field || fe.Rule == "" {
				t.Fatalf("want a field error on %s, got %v", tt.field, errs[0])
			}
			if !strings.HasPrefix(errs[0].Error(), tt.field+": ") {
				t.Fatalf("error %q does not name %s", errs[0], tt.field)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	m := Message{ID: "a", Session: "s"}.WithDefaults()
	if m.Event != EventMessage || m.Level != LevelInfo {
		t.Fatalf("defaults: got event %q level %q", m.Event, m.Level)
	}
	m = Message{Event: EventClose, Level: LevelError}.WithDefaults()
	if m.Event != EventClose || m.Level != LevelError {
		t.Fatalf("defaults overrode given values: %+v", m)
	}
}

func TestPaths(t *testing.T) {
	d, err := Paths("/a", "bot-1")
	if err != nil {
		t.Fatal(err)
	}
	want := Dirs{"/a/sdk/bus/bot-1", "/a/sdk/bus/bot-1/outbox", "/a/sdk/bus/bot-1/sent", "/a/sdk/bus/bot-1/failed", "/a/sdk/bus/bot-1/inbox", "/a/sdk/bus/bot-1/files"}
	if d != want {
		t.Fatalf("got %+v, want %+v", d, want)
	}
	for _, bad := range []string{"", "..", "a/b", "Bot", "-a", strings.Repeat("a", 64)} {
		if _, err := Paths("/a", bad); err == nil || !strings.Contains(err.Error(), "invalid daemon name") {
			t.Errorf("Paths(%q): want an invalid-name error, got %v", bad, err)
		}
	}
}

func TestNewIDSortsAndIsValid(t *testing.T) {
	prev := ""
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !validToken(id, MaxIDLen, false) || len(id) != 26 {
			t.Fatalf("NewID %q is not a valid 26-character id", id)
		}
		if id <= prev || seen[id] {
			t.Fatalf("NewID %q not after %q", id, prev)
		}
		seen[id], prev = true, id
	}
}
