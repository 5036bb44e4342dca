package bus

import (
	"strings"
	"testing"
)

func attempt(id, part string) Record {
	return Record{Op: OpAttempt, ID: id, Part: part, Session: "s:1", Text: "hello <b> & \u2028 é", Parts: 3, At: 1700000000000}
}

func done(id, part string) Record {
	return Record{Op: OpDone, ID: id, Part: part, Session: "s:1", Thread: "123", Remote: "1700000000.000100", At: 1700000000001}
}

func TestValidateRecord(t *testing.T) {
	mod := func(r Record, f func(*Record)) Record { f(&r); return r }
	base := attempt("m1", "0")
	tests := []struct {
		name  string
		r     Record
		field string // "" for valid
	}{
		{"attempt text part", base, ""},
		{"done", done("m1", "2"), ""},
		{"root", Record{Op: OpAttempt, ID: "m1", Part: PartRoot, Session: "s", Text: "title"}, ""},
		{"thread done", Record{Op: OpDone, ID: "m1", Part: PartThread, Session: "s", Remote: "999"}, ""},
		{"archive", Record{Op: OpAttempt, ID: "m1", Part: PartArchive, Session: "s", Thread: "9"}, ""},
		{"edit without parts", Record{Op: OpAttempt, ID: "m1", Part: "edit:0", Session: "s", Text: "x"}, ""},
		{"last part", mod(base, func(r *Record) { r.Part = "2" }), ""},
		{"root made again", Record{Op: OpAttempt, ID: "m1", Part: "root:1", Session: "s", Text: "title"}, ""},
		{"thread made again", Record{Op: OpDone, ID: "m1", Part: "thread:12", Session: "s", Remote: "999", Text: "name"}, ""},
		{"place generation zero", Record{Op: OpAttempt, ID: "m1", Part: "root:0", Session: "s"}, "part"},
		{"place generation leading zero", Record{Op: OpAttempt, ID: "m1", Part: "thread:01", Session: "s"}, "part"},
		{"place generation empty", Record{Op: OpAttempt, ID: "m1", Part: "root:", Session: "s"}, "part"},
		{"archive has no generation", Record{Op: OpAttempt, ID: "m1", Part: "archive:1", Session: "s"}, "part"},
		{"bad op", mod(base, func(r *Record) { r.Op = "Attempt" }), "op"},
		{"empty op", mod(base, func(r *Record) { r.Op = "" }), "op"},
		{"bad id", mod(base, func(r *Record) { r.ID = "a/b" }), "id"},
		{"empty id", mod(base, func(r *Record) { r.ID = "" }), "id"},
		{"long id", mod(base, func(r *Record) { r.ID = strings.Repeat("a", MaxIDLen+1) }), "id"},
		{"part leading zero", mod(base, func(r *Record) { r.Part = "01" }), "part"},
		{"part negative", mod(base, func(r *Record) { r.Part = "-1" }), "part"},
		{"part empty", mod(base, func(r *Record) { r.Part = "" }), "part"},
		{"part word", mod(base, func(r *Record) { r.Part = "Root" }), "part"},
		{"part edit empty", mod(base, func(r *Record) { r.Part = "edit:" }), "part"},
		{"part edit sign", mod(base, func(r *Record) { r.Part = "edit:+1" }), "part"},
		{"part huge", mod(base, func(r *Record) { r.Part = "99999999" }), "part"},
		{"part index past parts", mod(base, func(r *Record) { r.Part = "3" }), "part"},
		{"bad session", mod(base, func(r *Record) { r.Session = "a b" }), "session"},
		{"empty session", mod(base, func(r *Record) { r.Session = "" }), "session"},
		{"done without remote", mod(done("m1", "0"), func(r *Record) { r.Remote = "" }), "remote"},
		{"bad remote", mod(done("m1", "0"), func(r *Record) { r.Remote = "a\nb" }), "remote"},
		{"bad thread", mod(base, func(r *Record) { r.Thread = "x/y" }), "thread"},
		{"attempt text no parts", mod(base, func(r *Record) { r.Parts = 0 }), "parts"},
		{"negative parts", mod(base, func(r *Record) { r.Parts = -1 }), "parts"},
		{"too many parts", mod(base, func(r *Record) { r.Parts = MaxParts + 1 }), "parts"},
		{"invalid utf-8", mod(base, func(r *Record) { r.Text = "a\xffb" }), "text"},
		{"negative at", mod(base, func(r *Record) { r.At = -1 }), "at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateRecord(tt.r)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.field+":") {
				t.Fatalf("want an error on %s, got %v", tt.field, err)
			}
		})
	}
}

func TestParseRecord(t *testing.T) {
	good := `{"op":"attempt","id":"m1","part":"0","session":"s","text":"a<b>","parts":1,"at":5}`
	tests := []struct {
		name, line, wantErr string // wantErr "" for accepted
	}{
		{"good", good, ""},
		{"spaces", ` { "op" : "done" , "id":"m1","part":"root","session":"s","remote":"r","at":0 } `, ""},
		{"escaped key", `{"o\u0070":"done","id":"m1","part":"root","session":"s","remote":"r","at":0}`, ""},
		{"unknown field", `{"op":"done","id":"m1","part":"root","session":"s","remote":"r","at":0,"x":1}`, "unknown field"},
		{"case-folded field", `{"OP":"done","id":"m1","part":"root","session":"s","remote":"r","at":0}`, "unknown field"},
		{"repeated field", `{"op":"attempt","op":"done","id":"m1","part":"root","session":"s","remote":"r","at":0}`, "repeated"},
		{"null", `{"op":"done","id":"m1","part":"root","session":"s","remote":"r","thread":null,"at":0}`, "null"},
		{"wrong type", `{"op":"done","id":"m1","part":"root","session":"s","remote":"r","at":"0"}`, "cannot unmarshal"},
		{"float", `{"op":"done","id":"m1","part":"root","session":"s","remote":"r","at":1.5}`, "cannot unmarshal"},
		{"trailing data", good + `{}`, "after top-level value"},
		{"two lines in one", good + "\n" + good, "after top-level value"},
		{"invalid utf-8", `{"op":"attempt","id":"m1","part":"0","session":"s","text":"` + "\xff" + `","parts":1,"at":5}`, "UTF-8"},
		{"raw line separator", `{"op":"attempt","id":"m1","part":"0","session":"s","text":"` + "\u2028" + `","parts":1,"at":5}`, "U+2028"},
		{"array", `[1]`, "cannot unmarshal"},
		{"empty", ``, "unexpected end"},
		{"not json", `attempt m1 0`, "invalid character"},
		{"invalid record", `{"op":"attempt","id":"m1","part":"0","session":"s","at":5}`, "parts:"},
		{"over cap", `{"op":"attempt","text":"` + strings.Repeat("a", MaxJournalLine) + `"}`, "over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRecord([]byte(tt.line))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("want accepted, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("want error containing %q, got %v", tt.wantErr, err)
			}
		})
	}
}

func TestEncodeRecordsLines(t *testing.T) {
	recs := []Record{attempt("m1", "0"), done("m1", "0")}
	data, err := encodeRecords(recs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("want 2 newline-terminated lines, got %q", data)
	}
	if !strings.Contains(lines[0], `"text":"hello <b> & \u2028 é"`) {
		t.Fatalf("want compact, HTML-unescaped text, got %s", lines[0])
	}
	for i, l := range lines {
		got, err := ParseRecord([]byte(l))
		if err != nil || got != recs[i] {
			t.Fatalf("line %d: got %+v, %v; want %+v", i, got, err, recs[i])
		}
	}
	bad := attempt("m2", "0")
	bad.Op = "posted"
	if _, err := encodeRecords([]Record{recs[0], bad}); err == nil {
		t.Fatal("an invalid record among valid ones was encoded")
	}
	big := attempt("m3", "0")
	big.Text = strings.Repeat("\x01", MaxJournalLine/6+1)
	if _, err := encodeRecords([]Record{big}); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("a line over the cap was encoded: %v", err)
	}
	// The largest legal part: 3,900 code points, each escaped to 6 bytes.
	worst := attempt("m4", "0")
	worst.Text = strings.Repeat("\u2028", 3900)
	if _, err := encodeRecords([]Record{worst}); err != nil {
		t.Fatalf("the largest legal part refused: %v", err)
	}
}

func FuzzParseRecord(f *testing.F) {
	for _, r := range []Record{attempt("m1", "0"), done("m1", "edit:2"), {Op: OpAttempt, ID: "x", Part: PartThread, Session: "a:b"}} {
		data, err := encodeRecords([]Record{r})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:len(data)-1])
	}
	f.Add([]byte(`{"op":"done","op":"done"}`))
	f.Add([]byte(`{"o\u0070":"done","id":"m1","part":"root","session":"s","remote":"r","at":0}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseRecord(line)
		if err != nil {
			return
		}
		data, err := encodeRecords([]Record{r})
		if err != nil {
			t.Fatalf("accepted %q but cannot re-encode: %v", line, err)
		}
		again, err := ParseRecord(data[:len(data)-1])
		if err != nil || again != r {
			t.Fatalf("accepted %q as %+v; re-encoded %q parses as %+v, %v", line, r, data, again, err)
		}
	})
}

// A place part's name and its generation go both ways, and only
// PlacePart's spelling is read back.
func TestPlacePart(t *testing.T) {
	for _, tc := range []struct {
		base string
		gen  int
		want string
	}{{PartRoot, 0, "root"}, {PartThread, 0, "thread"}, {PartRoot, 1, "root:1"}, {PartThread, 42, "thread:42"}} {
		got := PlacePart(tc.base, tc.gen)
		if got != tc.want {
			t.Errorf("PlacePart(%s, %d) = %q, want %q", tc.base, tc.gen, got, tc.want)
		}
		if base, gen, ok := ParsePlacePart(got); !ok || base != tc.base || gen != tc.gen {
			t.Errorf("ParsePlacePart(%q) = %s, %d, %v", got, base, gen, ok)
		}
	}
	for _, bad := range []string{"archive", "0", "edit:1", "root:0", "root:-1", "thread:x", "Root"} {
		if _, _, ok := ParsePlacePart(bad); ok {
			t.Errorf("ParsePlacePart(%q) ok", bad)
		}
	}
}
