package bus

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	big := strings.Repeat("x", MaxTextSize)
	tests := []struct {
		name, in string
		want     Message
		errHas   string // "" means success
	}{
		{"minimal, defaults", `{"id":"a1","session":"s"}`, Message{ID: "a1", Session: "s", Event: "message", Level: "info"}, ""},
		{"full", `{"id":"a2","session":"s:1","event":"open","title":"T","text":"<b>&","level":"action","replaces":"a1"}`,
			Message{ID: "a2", Session: "s:1", Event: "open", Title: "T", Text: "<b>&", Level: "action", Replaces: "a1"}, ""},
		{"whitespace around", " \n{\"id\":\"a\",\"session\":\"s\"}\n ", Message{ID: "a", Session: "s", Event: "message", Level: "info"}, ""},
		{"largest text", `{"id":"a","session":"s","text":"` + big + `"}`, Message{ID: "a", Session: "s", Event: "message", Level: "info", Text: big}, ""},
		{"empty", ``, Message{}, "EOF"},
		{"not json", `hello`, Message{}, "invalid character"},
		{"null", `null`, Message{}, "null"},
		{"array", `[]`, Message{}, "cannot unmarshal array"},
		{"truncated", `{"id":"a","session":"s"`, Message{}, "unexpected EOF"},
		{"two values", `{"id":"a","session":"s"}{"id":"b","session":"s"}`, Message{}, "more than one JSON value"},
		{"trailing garbage", `{"id":"a","session":"s"} x`, Message{}, "more than one JSON value"},
		{"unknown field", `{"id":"a","session":"s","channel":"c"}`, Message{}, `unknown field "channel"`},
		{"case-folded field", `{"ID":"a","session":"s"}`, Message{}, `unknown field "ID"`},
		{"wrong type", `{"id":1,"session":"s"}`, Message{}, "cannot unmarshal number"},
		{"missing id", `{"session":"s"}`, Message{}, "id: must match"},
		{"missing session", `{"id":"a"}`, Message{}, "session: must match"},
		{"bad event", `{"id":"a","session":"s","event":"edit"}`, Message{}, "event: must be one of"},
		{"bad level", `{"id":"a","session":"s","level":"debug"}`, Message{}, "level: must be one of"},
		{"replaces itself", `{"id":"a","session":"s","replaces":"a"}`, Message{}, "replaces: must not be"},
		{"invalid utf-8", "{\"id\":\"a\",\"session\":\"s\",\"text\":\"\xff\"}", Message{}, "not valid UTF-8"},
		{"escaped invalid surrogate is replaced, still valid", `{"id":"a","session":"s","text":"\ud800"}`, Message{ID: "a", Session: "s", Event: "message", Level: "info", Text: "\ufffd"}, ""},
		{"text over 1 MiB", `{"id":"a","session":"s","text":"` + big + `y"}`, Message{}, "text: is 1048577 bytes"},
		{"file over cap", `{"id":"a","session":"s","text":"` + strings.Repeat("x", MaxFileSize) + `"}`, Message{}, "over 1114112"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if tt.errHas == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if !got.Equal(tt.want) {
					t.Fatalf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("want error containing %q, got %v", tt.errHas, err)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	m := Message{ID: "a", Session: "s", Event: "close", Level: "error", Title: "é", Text: "<@here> & \u2028 \x01", Replaces: "b"}
	data, err := encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data)
	if err != nil || !got.Equal(m) {
		t.Fatalf("round trip: got %+v, %v; want %+v", got, err, m)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"a","session":"s","text":"x"}`))
	f.Add([]byte(`{"id":"a","session":"s","replaces":"b","event":"open"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		if errs := m.Validate(); len(errs) > 0 {
			t.Fatalf("Decode accepted an invalid message: %v", errs)
		}
		again, err := encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if m2, err := Decode(again); err != nil || !m2.Equal(m) {
			t.Fatalf("re-encoded message does not decode the same: %+v, %v", m2, err)
		}
	})
}
