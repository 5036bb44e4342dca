package bus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckInboxEntry takes any kind of inbox entry whose names are ones the
// bus writes and whose id and session are the ones the names carry, and
// nothing else.
func TestCheckInboxEntry(t *testing.T) {
	reply, _ := EncodeInbox(inboxMsg())
	const file = "1796198400123-1234567890123.json"
	decision := `{"id":"1234567890123","session":"s-1","ask":"a1","choice":"Approve","user":"U1","ts":"2026-12-02T08:00:00.123Z"}`
	for _, c := range []struct {
		name, session, file, data string
		ok                        bool
	}{
		{"a reply", "s-1", file, string(reply), true},
		{"a decision", "s-1", file, decision, true},
		{"session climbs out", "..", file, string(reply), false},
		{"session hidden", ".s", file, string(reply), false},
		{"session with a slash", "s/1", file, string(reply), false},
		{"session climbs out, its value agreeing", "..", file, `{"id":"1234567890123","session":".."}`, false},
		{"session empty", "", file, string(reply), false},
		{"file climbs out", "s-1", "../1796198400123-1234567890123.json", string(reply), false},
		{"file with a slash", "s-1", "1796198400123-12/34.json", string(reply), false},
		{"file a stage", "s-1", ".1796198400123-1234567890123.json.tmp", string(reply), false},
		{"file not json", "s-1", "1796198400123-1234567890123.sh", string(reply), false},
		{"file without time", "s-1", "x-1234567890123.json", string(reply), false},
		{"file with letters for its time", "s-1", "abcdefghijklm-1234567890123.json", string(reply), false},
		{"file without its dash", "s-1", "1796198400123_1234567890123.json", string(reply), false},
		{"id not the name's", "s-1", "1796198400123-999.json", string(reply), false},
		{"session not the key's", "s-2", file, string(reply), false},
		{"id missing", "s-1", file, `{"session":"s-1"}`, false},
		{"id folded", "s-1", file, `{"ID":"1234567890123","session":"s-1"}`, false},
		{"id repeated", "s-1", file, `{"id":"x","id":"1234567890123","session":"s-1"}`, false},
		{"two values", "s-1", file, string(reply) + `{}`, false},
		{"an array", "s-1", file, `[]`, false},
		{"null", "s-1", file, `null`, false},
		{"not utf8", "s-1", file, "{\"id\":\"1234567890123\",\"session\":\"s-1\",\"t\":\"\xff\"}", false},
		{"too large", "s-1", file, `{"id":"1234567890123","session":"s-1","t":"` + strings.Repeat("a", MaxInboxFileSize) + `"}`, false},
	} {
		err := CheckInboxEntry(c.session, c.file, []byte(c.data))
		if (err == nil) != c.ok {
			t.Errorf("%s: CheckInboxEntry = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// A copy is staged under a name of its own, which neither a landing's
// recovery nor a reader takes, and published without replacing a file
// that holds other bytes.
func TestInboxCopyStagePublish(t *testing.T) {
	d := testDirs(t)
	m := inboxMsg()
	data, _ := EncodeInbox(m)
	file, _ := InboxFileName(m)
	if err := StageInboxCopy(d, m.Session, file, data); err != nil {
		t.Fatal(err)
	}
	if landings, _ := ListStagedInbox(d); len(landings) != 0 {
		t.Fatalf("a copy's stage is listed as a landing's: %v", landings)
	}
	if copies, _ := ListStagedInboxCopies(d); len(copies) != 1 || copies[0] != (StagedInbox{m.Session, file}) {
		t.Fatalf("copies = %v", copies)
	}
	if err := PublishInboxCopy(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(d.Inbox, m.Session, file)
	if got, err := os.ReadFile(final); err != nil || string(got) != string(data) {
		t.Fatalf("published %q, %v", got, err)
	}
	if fi, _ := os.Stat(final); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	// Published already: nothing to do.
	if err := PublishInboxCopy(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	// Other bytes there: never replaced.
	other := strings.Replace(string(data), "ship", "sink", 1)
	if err := os.WriteFile(final, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := StageInboxCopy(d, m.Session, file, data); err != nil {
		t.Fatal(err)
	}
	if err := PublishInboxCopy(d, m.Session, file); err == nil {
		t.Fatal("a copy replaced a file holding other bytes")
	}
	if got, _ := os.ReadFile(final); string(got) != other {
		t.Fatalf("the file there became %q", got)
	}
	if err := RemoveStagedInboxCopy(d, StagedInbox{m.Session, file}); err != nil {
		t.Fatal(err)
	}
	if copies, _ := ListStagedInboxCopies(d); len(copies) != 0 {
		t.Fatalf("copies left = %v", copies)
	}
}
