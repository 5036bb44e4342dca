package bus

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAskValidate(t *testing.T) {
	ask := func(edit func(*Message)) Message {
		m := Message{ID: "01JASK", Session: "s", Event: EventAsk, Text: "May I run rm -rf build?",
			Choices: []string{"Approve", "Deny"}, ExpiresAt: "2026-12-06T09:00:00.000Z"}
		if edit != nil {
			edit(&m)
		}
		return m.WithDefaults()
	}
	tests := []struct {
		name   string
		m      Message
		errHas string // "" is valid
	}{
		{"valid", ask(nil), ""},
		{"level defaults to action", ask(func(m *Message) { m.Level = "" }), ""},
		{"one choice", ask(func(m *Message) { m.Choices = []string{"OK"} }), ""},
		{"no choices", ask(func(m *Message) { m.Choices = nil }), "1 to 5 choices"},
		{"six choices", ask(func(m *Message) { m.Choices = []string{"a", "b", "c", "d", "e", "f"} }), "1 to 5 choices"},
		{"twice", ask(func(m *Message) { m.Choices = []string{"Yes", "yes"} }), "given twice"},
		{"expired", ask(func(m *Message) { m.Choices = []string{"Expired"} }), `"expired"`},
		{"long label", ask(func(m *Message) { m.Choices = []string{strings.Repeat("é", 41)} }), "at most 40"},
		{"blank label", ask(func(m *Message) { m.Choices = []string{" Yes"} }), "leading or trailing"},
		{"control", ask(func(m *Message) { m.Choices = []string{"a\nb"} }), "control"},
		{"no text", ask(func(m *Message) { m.Text = " " }), "question's text"},
		{"no expiry", ask(func(m *Message) { m.ExpiresAt = "" }), "expiresAt"},
		{"bad expiry", ask(func(m *Message) { m.ExpiresAt = "2026-12-06T09:00:00Z" }), "expiresAt"},
		{"replaces", ask(func(m *Message) { m.Replaces = "other" }), "replaces nothing"},
		{"expiry at 1970", ask(func(m *Message) { m.ExpiresAt = "1970-01-01T00:00:00.000Z" }), "after 1970"},
		{"hidden session", ask(func(m *Message) { m.Session = ".s" }), "must not start with a dot"},
		{"long id", ask(func(m *Message) { m.ID = strings.Repeat("a", 57) }), "56 bytes"},
		{"message with choices", ask(func(m *Message) { m.Event = EventMessage }), "only an ask"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := errorsOf(tt.m.Validate())
			switch {
			case tt.errHas == "" && err != "":
				t.Fatalf("Validate: %s", err)
			case tt.errHas != "" && !strings.Contains(err, tt.errHas):
				t.Fatalf("Validate = %q, want it to say %q", err, tt.errHas)
			}
		})
	}
}

func TestAskRoundTrip(t *testing.T) {
	m := Message{ID: "01JASK", Session: "s", Event: EventAsk, Text: "ok?", Choices: []string{"Yes", "No"},
		ExpiresAt: "2026-12-06T09:00:00.000Z"}
	data, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(m.WithDefaults()) || got.Level != LevelAction {
		t.Fatalf("got %+v", got)
	}
	if OutcomeID(m.ID) != "01JASK.outcome" || !ValidID(OutcomeID(strings.Repeat("a", MaxAskIDLen))) {
		t.Fatal("an outcome id must be a valid id for every ask id")
	}
}

func TestDecisionValidate(t *testing.T) {
	d := Decision("s", "01JASK", "Approve", "U1", mustTime(t, "2026-12-06T09:00:00.000Z"))
	tests := []struct {
		name   string
		m      InboxMessage
		errHas string
	}{
		{"valid", d, ""},
		{"expired", Decision("s", "01JASK", ChoiceExpired, "", mustTime(t, "2026-12-06T09:00:00.000Z")), ""},
		{"expired with user", func() InboxMessage { m := d; m.Choice = ChoiceExpired; return m }(), "no one"},
		{"no user", func() InboxMessage { m := d; m.User = ""; return m }(), "user"},
		{"other id", func() InboxMessage { m := d; m.ID = "x"; return m }(), "id of the ask"},
		{"text", func() InboxMessage { m := d; m.Text = "hi"; return m }(), "no text"},
		{"no choice", func() InboxMessage { m := d; m.Choice = ""; return m }(), "choice"},
		{"reply with choice", InboxMessage{ID: "1", Session: "s", User: "U1", Text: "x", Choice: "Yes", TS: d.TS}, "only a decision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := errorsOf(tt.m.Validate())
			switch {
			case tt.errHas == "" && err != "":
				t.Fatalf("Validate: %s", err)
			case tt.errHas != "" && !strings.Contains(err, tt.errHas):
				t.Fatalf("Validate = %q, want it to say %q", err, tt.errHas)
			}
		})
	}
	data, err := EncodeInbox(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"01JASK","session":"s","user":"U1","ask":"01JASK","choice":"Approve","ts":"2026-12-06T09:00:00.000Z"}` + "\n"; string(data) != want {
		t.Fatalf("encoded %s, want %s", data, want)
	}
	back, err := DecodeInbox(data)
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("DecodeInbox = %+v, %v", back, err)
	}
}

func errorsOf(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "; ")
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(InboxTimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestChoiceData(t *testing.T) {
	long := strings.Repeat("a", MaxAskIDLen)
	if d := ChoiceData(long, 4); len(d) > 64 {
		t.Fatalf("choice data %d bytes, over Telegram's 64", len(d))
	}
	tests := []struct {
		data string
		ask  string
		i    int
		ok   bool
	}{
		{"01JASK:0", "01JASK", 0, true},
		{"01JASK:4", "01JASK", 4, true},
		{long + ":1", long, 1, true},
		{"01JASK:5", "", 0, false}, // past MaxChoices
		{"01JASK:10", "", 0, false},
		{"01JASK:", "", 0, false},
		{":0", "", 0, false},
		{"a/b:0", "", 0, false},
		{"01JASK", "", 0, false},
		{long + "a:0", "", 0, false}, // no ask has so long an id
		{"01JASK:-", "", 0, false},
	}
	for _, tt := range tests {
		ask, i, ok := ParseChoiceData(tt.data)
		if ask != tt.ask || i != tt.i || ok != tt.ok {
			t.Errorf("ParseChoiceData(%q) = %q, %d, %v; want %q, %d, %v", tt.data, ask, i, ok, tt.ask, tt.i, tt.ok)
		}
	}
}

// An ask's record holds an array: its keys are still checked, and a
// choice that looks like JSON inside its string is only a string.
func TestAskRecordRoundTrip(t *testing.T) {
	rec := InboundRecord{Op: OpAsk, ID: "01JASK", Place: "T1", Session: "s", Remote: "R1",
		Choices: []string{`Yes, "do" it]`, `[No`, `{}`}, At: 1}
	data, err := encodeInbound([]InboundRecord{rec})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseInboundRecord(bytes.TrimRight(data, "\n"))
	if err != nil || !reflect.DeepEqual(got, rec) {
		t.Fatalf("ParseInboundRecord = %+v, %v", got, err)
	}
	for _, bad := range []string{
		`{"op":"ask","id":"a","place":"T1","session":"s","remote":"R1","choices":["Yes"],"at":1,"choices":["No"]}`,
		`{"op":"ask","id":"a","place":"T1","session":"s","remote":"R1","choices":["Yes"],"at":1,"extra":1}`,
		`{"op":"landed","id":"a","place":"T1","session":"s","file":"0000000000001-a.json","choices":["Yes"],"at":1}`,
		`{"op":"decided","id":"a","place":"T1","session":"s","file":"0000000000001-a.json","choice":"expired","user":"U1","at":1}`,
	} {
		if _, err := ParseInboundRecord([]byte(bad)); err == nil {
			t.Errorf("ParseInboundRecord accepted %s", bad)
		}
	}
}
