package bus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func replyWithFiles(files ...InboxFile) InboxMessage {
	return InboxMessage{ID: "100", Session: "s1", User: "alice", Text: "see", TS: InboxTime(time.UnixMilli(1767225600000)), Files: files}
}

const replyFiles = "1767225600000-100.files"

func TestInboxFilesValidate(t *testing.T) {
	ok := InboxFile{Name: "shot.png", Path: replyFiles + "/shot.png", Size: 3, ContentType: "image/png"}
	skipped := InboxFile{Name: "big.bin", Size: 1 << 30, Skipped: "1.0 GiB, over maxInboundFileBytes 10 MiB"}
	for _, c := range []struct {
		name  string
		files []InboxFile
		bad   string // the field refused; "" valid
	}{
		{"landed and skipped", []InboxFile{ok, skipped}, ""},
		{"a path elsewhere", []InboxFile{{Name: "shot.png", Path: "../../../.ssh/authorized_keys"}}, "files[0].path"},
		{"another reply's directory", []InboxFile{{Name: "shot.png", Path: "1767225600000-101.files/shot.png"}}, "files[0].path"},
		{"a name with a slash", []InboxFile{{Name: "../x", Path: replyFiles + "/../x"}}, "files[0].name"},
		{"a hidden name", []InboxFile{{Name: ".env", Path: replyFiles + "/.env"}}, "files[0].name"},
		{"two names folding to one", []InboxFile{ok, {Name: "SHOT.png", Path: replyFiles + "/SHOT.png"}}, "files[1].name"},
		{"a skipped file with a path", []InboxFile{{Name: "big.bin", Path: replyFiles + "/big.bin", Skipped: "over"}}, "files[0].path"},
		{"a negative size", []InboxFile{{Name: "a", Path: replyFiles + "/a", Size: -1}}, "files[0].size"},
		{"an endless reason", []InboxFile{{Name: "a", Skipped: strings.Repeat("x", MaxInboxFileSkipped+1)}}, "files[0]"},
	} {
		errs := replyWithFiles(c.files...).Validate()
		var fields []string
		for _, e := range errs {
			fields = append(fields, e.(*FieldError).Field)
		}
		if c.bad == "" && len(errs) > 0 || c.bad != "" && strings.Join(fields, ",") != c.bad {
			t.Errorf("%s: %v; want refused at %q", c.name, errs, c.bad)
		}
	}
	d := InboxMessage{ID: "a1", Session: "s1", User: "alice", Ask: "a1", Choice: "Approve", TS: InboxTime(time.UnixMilli(1767225600000)), Files: []InboxFile{skipped}}
	if len(d.Validate()) == 0 {
		t.Error("a decision with files is valid")
	}
}

// The listing of the most files a reply holds, each as long as its caps
// let it be and escaped at worst, still fits an inbox file.
func TestInboxFilesFitTheFileCap(t *testing.T) {
	m := replyWithFiles()
	m.Text = strings.Repeat("a", MaxInboxText)
	used := map[string]bool{}
	for range MaxInboxFiles {
		name := UniqueInboxFileName(strings.Repeat(`"`, 300), used)
		m.Files = append(m.Files, InboxFile{Name: name, Original: strings.Repeat("\x01", 255), Size: 1 << 40,
			ContentType: strings.Repeat(`"`, 255), Skipped: strings.Repeat("\x02", MaxInboxFileSkipped)})
	}
	data, err := EncodeInbox(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > MaxInboxFileSize {
		t.Fatalf("%d bytes, over %d", len(data), MaxInboxFileSize)
	}
	if _, err := DecodeInbox(data); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeInboxFilesStrictly(t *testing.T) {
	good := `{"id":"100","session":"s1","user":"alice","text":"see","files":[{"name":"shot.png","path":"` + replyFiles + `/shot.png","size":3}],"ts":"2026-01-01T00:00:00.000Z"}`
	if m, err := DecodeInbox([]byte(good)); err != nil || len(m.Files) != 1 {
		t.Fatalf("DecodeInbox = %+v, %v", m, err)
	}
	for _, bad := range []string{
		strings.Replace(good, `"path"`, `"Path"`, 1),
		strings.Replace(good, `"size":3`, `"size":3,"size":4`, 1),
		strings.Replace(good, `"size":3`, `"size":3,"mode":511`, 1),
		strings.Replace(good, `"files"`, `"Files"`, 1),
		strings.Replace(good, `"path":"`+replyFiles+`/shot.png"`, `"path":"/etc/passwd"`, 1),
	} {
		if _, err := DecodeInbox([]byte(bad)); err == nil {
			t.Errorf("DecodeInbox(%s) accepted", bad)
		}
	}
}

// A reply's files directory is no inbox message to a reader: passed over
// without a word; LandedFile finds a listed file there, and refuses one
// reached through a link.
func TestInboxReaderAndLandedFiles(t *testing.T) {
	d, err := Paths(t.TempDir(), "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	m := replyWithFiles(InboxFile{Name: "shot.png", Path: replyFiles + "/shot.png", Size: 6})
	file, err := InboxFileName(m)
	if err != nil {
		t.Fatal(err)
	}
	st, err := StageInboxFiles(d, m.Session, file)
	if err != nil {
		t.Fatal(err)
	}
	name, f, err := st.Create("shot.png")
	if err != nil || name != "shot.png" {
		t.Fatal(name, err)
	}
	_, _ = f.WriteString("pixels")
	_ = f.Close()
	if err := st.Done(); err != nil {
		t.Fatal(err)
	}
	if _, err := StageInbox(d, m); err != nil {
		t.Fatal(err)
	}
	if moved, err := PublishInboxFiles(d, m.Session, file); err != nil || !moved {
		t.Fatalf("PublishInboxFiles = %v, %v", moved, err)
	}
	if moved, err := PublishInboxFiles(d, m.Session, file); err != nil || moved {
		t.Fatalf("PublishInboxFiles again = %v, %v; want nothing to do", moved, err)
	}
	if err := PublishInbox(d, m.Session, file); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	r := NewInboxReader(d, "", func(path, reason string) { skipped = append(skipped, path+": "+reason) })
	msgs, _, err := r.Scan()
	if err != nil || len(msgs) != 1 || len(skipped) != 0 {
		t.Fatalf("Scan = %+v, %v; skipped %v", msgs, err, skipped)
	}
	if n, err := LandedFile(d, m.Session, msgs[0].Files[0]); err != nil || n != 6 {
		t.Fatalf("LandedFile = %d, %v", n, err)
	}
	filesDir := filepath.Join(d.Inbox, m.Session, replyFiles)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(filesDir, "shot.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(filesDir, "shot.png")); err != nil {
		t.Fatal(err)
	}
	if _, err := LandedFile(d, m.Session, msgs[0].Files[0]); err == nil {
		t.Fatal("LandedFile followed a link")
	}
	if err := os.RemoveAll(filesDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(secret), filesDir); err != nil {
		t.Fatal(err)
	}
	if _, err := LandedFile(d, m.Session, InboxFile{Name: "secret", Path: replyFiles + "/secret"}); err == nil {
		t.Fatal("LandedFile went through a linked directory")
	}
}
