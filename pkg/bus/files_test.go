package bus

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func TestOpenFileRefusesWhatIsNotARegularFileOfOurs(t *testing.T) {
	d := busDirs(t)
	put(t, d.Files, "ok", "content")
	if err := os.Symlink(filepath.Join(d.Files, "ok"), filepath.Join(d.Files, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(d.Files, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(d.Files, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	f, e, err := OpenFile(d, "ok")
	if err != nil || e.Size != 7 {
		t.Fatalf("OpenFile(ok) = %v, %+v", err, e)
	}
	_ = f.Close()
	for _, name := range []string{"link", "fifo", "dir"} {
		f, _, err := OpenFile(d, name)
		if f != nil {
			_ = f.Close()
		}
		if !errors.Is(err, platform.ErrUnsafeFile) {
			t.Errorf("OpenFile(%s) = %v, want ErrUnsafeFile", name, err)
		}
	}
	for _, name := range []string{".hidden", "../outbox/x", ""} {
		if _, _, err := OpenFile(d, name); err == nil {
			t.Errorf("OpenFile(%q) opened", name)
		}
	}
}

// A message's entries move to sent/<id>.files/, and a second call (a
// crash after some of the moves) finishes without a word.
func TestMoveFiles(t *testing.T) {
	d := busDirs(t)
	put(t, d.Files, "a", "A")
	put(t, d.Files, "b", "B")
	put(t, d.Files, "other", "O")
	b, err := OpenBox(d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.MoveFiles("m1", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := b.MoveFiles("m1", []string{"a", "b"}); err != nil {
		t.Fatalf("again: %v", err)
	}
	got, _ := os.ReadDir(filepath.Join(d.Sent, "m1.files"))
	left, _ := os.ReadDir(d.Files)
	if len(got) != 2 || len(left) != 1 || left[0].Name() != "other" {
		t.Errorf("sent/m1.files holds %v, files/ %v; want a, b moved and other left", got, left)
	}
	st, err := os.Stat(filepath.Join(d.Sent, "m1.files"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("sent/m1.files: %v, %v", st, err)
	}
}

// gc: sent/<id>.files/ goes with the message once old; a files/ entry no
// message in outbox/ or failed/ names goes once old; a named or young one
// stays.
func TestPruneSentAndFiles(t *testing.T) {
	d := busDirs(t)
	old := time.Now().Add(-48 * time.Hour)
	put(t, d.Files, "a", "A")
	b, err := OpenBox(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.MoveFiles("m1", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := os.Chtimes(filepath.Join(d.Sent, "m1.files"), old, old); err != nil {
		t.Fatal(err)
	}
	if n, err := PruneSent(d, time.Now().Add(-24*time.Hour)); err != nil || n != 1 {
		t.Errorf("PruneSent = %d, %v; want the files dir pruned", n, err)
	}
	if _, err := os.Stat(filepath.Join(d.Sent, "m1.files")); !os.IsNotExist(err) {
		t.Errorf("sent/m1.files still there: %v", err)
	}

	for _, e := range []string{"orphan", "named-out", "named-failed", "young"} {
		put(t, d.Files, e, e)
		if e != "young" {
			if err := os.Chtimes(filepath.Join(d.Files, e), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := Write(d.Outbox, Message{ID: "o1", Session: "s", Attachments: []Attachment{{File: "named-out", Name: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(d.Outbox, Message{ID: "f1", Session: "s", Attachments: []Attachment{{File: "named-failed", Name: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if err := Fail(d, "f1.json", "over a limit"); err != nil {
		t.Fatal(err)
	}
	if n, err := PruneFiles(d, time.Now().Add(-24*time.Hour)); err != nil || n != 1 {
		t.Errorf("PruneFiles = %d, %v; want the orphan alone", n, err)
	}
	var left []string
	ents, _ := os.ReadDir(d.Files)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"named-failed", "named-out", "young"}) {
		t.Errorf("files/ holds %v", left)
	}
}

func TestAddFile(t *testing.T) {
	d := busDirs(t)
	src := t.TempDir()
	p := filepath.Join(src, "my report (final).pdf")
	if err := os.WriteFile(p, []byte("%PDF-1.4 ..."), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := AddFile(d, "m1", 2, p)
	if err != nil {
		t.Fatal(err)
	}
	if a != (Attachment{File: "m1-2-my_report__final_.pdf", Name: "my report (final).pdf", ContentType: "application/pdf"}) {
		t.Errorf("attachment %+v", a)
	}
	data, err := os.ReadFile(filepath.Join(d.Files, a.File))
	if err != nil || string(data) != "%PDF-1.4 ..." {
		t.Errorf("copied %q, %v", data, err)
	}
	if ents, _ := os.ReadDir(d.Files); len(ents) != 1 {
		t.Errorf("files/ holds %d entries, want the copy alone (no temp left)", len(ents))
	}
	fifo := filepath.Join(src, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(src, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{fifo, link, src} {
		if _, err := AddFile(d, "m2", 0, bad); err == nil {
			t.Errorf("AddFile(%s) copied it", bad)
		}
	}
	if long := EntryName("m1", 0, strings.Repeat("x", 300)+".log"); len(long) != MaxAttachmentName || !strings.HasSuffix(long, ".log") || !ValidFileEntry(long) {
		t.Errorf("EntryName of a long name = %q (%d bytes)", long, len(long))
	}
}

func TestFileRecords(t *testing.T) {
	sum := strings.Repeat("a", 64)
	ok := Record{Op: OpAttempt, ID: "m", Part: FilePart(3), Session: "s", Thread: "t", File: "m-3-x", Name: "x", ContentType: "text/plain", Size: 1, FileSum: sum}
	text := Record{Op: OpAttempt, ID: "m", Part: PartFileText, Session: "s", Name: "m.md", ContentType: "text/markdown", Size: 1, FileSum: sum}
	stage := Record{Op: OpStage, ID: "m", Part: FilePart(3), Session: "s", Remote: "F123"}
	for _, r := range []Record{ok, text, stage} {
		if err := ValidateRecord(r); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
		line, err := encodeRecords([]Record{r})
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRecord([]byte(strings.TrimSpace(string(line))))
		if err != nil || back != r {
			t.Errorf("round trip %+v -> %+v, %v", r, back, err)
		}
	}
	bad := map[string]Record{}
	r := ok
	r.FileSum = ""
	bad["no sum"] = r
	r = ok
	r.File = "../x"
	bad["bad entry"] = r
	r = ok
	r.Part = "0"
	bad["file fields on a text part"] = r
	r = ok
	r.Part = "file:10"
	bad["k past the most attachments"] = r
	r = stage
	r.Remote = ""
	bad["stage without a token"] = r
	r = text
	r.File = "m-0-x"
	bad["the long text with an entry"] = r
	for name, r := range bad {
		if ValidateRecord(r) == nil {
			t.Errorf("%s: %+v accepted", name, r)
		}
	}
	if k, ok := ParseFilePart("file:03"); ok {
		t.Errorf("file:03 parsed as %d", k)
	}
}
