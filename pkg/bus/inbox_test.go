package bus

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func inboxMsg() InboxMessage {
	return InboxMessage{ID: "1234567890123", Session: "s-1", User: "U42", Text: "yes, <go> & ship", TS: "2026-12-02T08:00:00.123Z"}
}

func TestInboxEncodeDecodeRoundTrip(t *testing.T) {
	m := inboxMsg()
	data, err := EncodeInbox(m)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := EncodeInbox(m)
	if string(data) != string(again) {
		t.Fatal("encoding is not deterministic")
	}
	if !strings.Contains(string(data), "<go> & ship") {
		t.Errorf("text escaped: %s", data)
	}
	got, err := DecodeInbox(data)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("DecodeInbox = %+v, %v; want %+v", got, err, m)
	}
	name, err := InboxFileName(m)
	if err != nil || name != "1796198400123-1234567890123.json" {
		t.Errorf("InboxFileName = %q, %v", name, err)
	}
}

func TestDecodeInboxRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"unknown field": `{"id":"1","session":"s","user":"U","text":"","ts":"2026-12-02T08:00:00.123Z","x":1}`,
		"repeated key":  `{"id":"1","id":"2","session":"s","user":"U","text":"","ts":"2026-12-02T08:00:00.123Z"}`,
		"folded key":    `{"ID":"1","session":"s","user":"U","text":"","ts":"2026-12-02T08:00:00.123Z"}`,
		"null":          `{"id":"1","session":null,"user":"U","text":"","ts":"2026-12-02T08:00:00.123Z"}`,
		"bad ts":        `{"id":"1","session":"s","user":"U","text":"","ts":"yesterday"}`,
		"local ts":      `{"id":"1","session":"s","user":"U","text":"","ts":"2026-12-02T09:00:00.123+01:00"}`,
		"hidden":        `{"id":"1","session":"..","user":"U","text":"","ts":"2026-12-02T08:00:00.123Z"}`,
		"two values":    `{"id":"1","session":"s","user":"U","text":"","ts":"2026-12-02T08:00:00.123Z"} {}`,
		"not utf8":      "{\"id\":\"1\",\"session\":\"s\",\"user\":\"U\",\"text\":\"\xff\",\"ts\":\"2026-12-02T08:00:00.123Z\"}",
		"array":         `[]`,
	} {
		if _, err := DecodeInbox([]byte(in)); err == nil {
			t.Errorf("%s: accepted %s", name, in)
		}
	}
}

func TestInboxStagePublish(t *testing.T) {
	d := testDirs(t)
	m := inboxMsg()
	file, err := StageInbox(d, m)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(d.Inbox, m.Session, file)
	if _, err := os.Lstat(final); err == nil {
		t.Fatal("staged file visible before publish")
	}
	staged, err := ListStagedInbox(d)
	if err != nil || len(staged) != 1 || staged[0] != (StagedInbox{m.Session, file}) {
		t.Fatalf("ListStagedInbox = %v, %v", staged, err)
	}
	if err := PublishInbox(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	want, _ := EncodeInbox(m)
	if got, err := os.ReadFile(final); err != nil || string(got) != string(want) {
		t.Fatalf("published %q, %v", got, err)
	}
	// Published again (a replay of the record): nothing to do.
	if err := PublishInbox(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	// Taken by the reader, then the record replayed: still nothing.
	if err := os.Remove(final); err != nil {
		t.Fatal(err)
	}
	if err := PublishInbox(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(final); err == nil {
		t.Fatal("a taken file came back")
	}
}

func TestInboxPublishOverDifferentContent(t *testing.T) {
	d := testDirs(t)
	m := inboxMsg()
	file, err := StageInbox(d, m)
	if err != nil {
		t.Fatal(err)
	}
	final := filepath.Join(d.Inbox, m.Session, file)
	if err := os.WriteFile(final, []byte("someone else's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := PublishInbox(d, m.Session, file); err == nil {
		t.Fatal("published over other content")
	}
	if got, _ := os.ReadFile(final); string(got) != "someone else's" {
		t.Fatalf("final file touched: %q", got)
	}
}

func TestSessionInboxDirRefusesALink(t *testing.T) {
	d := testDirs(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(d.Inbox, "s-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := StageInbox(d, inboxMsg()); err == nil {
		t.Fatal("staged through a symbolic link")
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote through the link: %v", entries)
	}
}

func TestInboundJournalRoundTrip(t *testing.T) {
	d := testDirs(t)
	path := d.InboundJournalPath()
	j, err := OpenInboundJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 8, 0, 0, 123e6, time.UTC).UnixMilli()
	recs := []InboundRecord{
		{Op: OpLanded, ID: "1234567890123", Place: "T1", Session: "s-1", File: "1796198400123-1234567890123.json", At: at},
		{Op: OpReacted, ID: "1234567890123", Place: "T1", At: at},
		{Op: OpCursor, ID: "1234567890123", Place: "T1", At: at},
	}
	if err := j.Append(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), InboundRecord{Op: OpLanded, ID: "2", Place: "T1", Session: "s-1", File: "1796198400123-3.json", At: at}); err == nil {
		t.Error("a landed record naming another id's file was appended")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var got []InboundRecord
	if err := ReplayInboundJournal(path, func(r InboundRecord) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("replayed %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Errorf("record %d = %+v, want %+v", i, got[i], recs[i])
		}
	}
}

func TestParseInboundRecordRefuses(t *testing.T) {
	for _, in := range []string{
		`{"op":"landed","id":"1","place":"T","at":1}`,
		`{"op":"reacted","id":"1","place":"T","at":1,"session":"s"}`,
		`{"op":"seen","id":"1","place":"T","at":1}`,
		`{"op":"cursor","id":"1","place":"T","at":0}`,
		`{"op":"cursor","id":"1","place":"T","at":1,"op":"cursor"}`,
		`{"op":"cursor","id":"1","place":"T","At":1}`,
	} {
		if _, err := ParseInboundRecord([]byte(in)); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
}

func testDirs(t *testing.T) Dirs {
	t.Helper()
	d, err := Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return d
}
