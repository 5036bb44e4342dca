package relay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/redact"
)

// putFile writes a files/ entry as a producer does.
func (h *harness) putFile(entry string, data []byte) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dirs.Files, entry), data, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func hexSum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// failedReason waits for failed/<id>.json and returns its reason.
func (h *harness) failedReason(id string) string {
	h.t.Helper()
	path := filepath.Join(h.dirs.Failed, id+".json")
	h.waitFor("failed/"+id, func() bool { _, err := os.Stat(path); return err == nil })
	data, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	var rec bus.FailedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		h.t.Fatal(err)
	}
	return rec.Reason
}

func (f *fakePoster) postCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.posts)
}

// A message's files are posted after its text, each its own message,
// once, their content intact; the entries leave with the message.
func TestFilesPostedAfterTheTextEachOnce(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	logData := []byte(strings.Repeat("a log line\n", 500))
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 3000)...)
	h.putFile("m1-0-build.log", logData)
	h.putFile("m1-1-shot.png", png)
	h.send(bus.Message{ID: "m1", Session: "s", Text: "the build", Attachments: []bus.Attachment{
		{File: "m1-0-build.log", Name: "build-log"}, {File: "m1-1-shot.png", Name: "shot.png", ContentType: "image/png"},
	}})
	h.start()
	h.waitFor("outbox drained", h.outboxEmpty)
	th := f.sessionThread("s")
	if got := f.texts(th); !slices.Equal(got, []string{"the build", "", ""}) {
		t.Errorf("thread holds %q, want the text then two files", got)
	}
	got := f.files(th)
	want := []fakeUpload{
		{key: "m1/file:0", name: "build-log", ctype: "text/plain; charset=utf-8", sum: hexSum(logData), size: int64(len(logData))},
		{key: "m1/file:1", name: "shot.png", ctype: "image/png", sum: hexSum(png), size: int64(len(png))},
	}
	if !slices.Equal(got, want) {
		t.Errorf("files %+v, want %+v", got, want)
	}
	if left := files(t, h.dirs.Files); len(left) != 0 {
		t.Errorf("files/ still holds %v", left)
	}
	if moved := files(t, filepath.Join(h.dirs.Sent, "m1.files")); !slices.Equal(moved, []string{"m1-0-build.log", "m1-1-shot.png"}) {
		t.Errorf("sent/m1.files holds %v", moved)
	}
}

// Every limit is checked before the message's first request: over one,
// the message goes to failed/ naming the file and the limit, nothing of
// it is posted, and its entries stay in files/ for a retry.
func TestFileLimitsFailBeforeAnyRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits FileLimits
		n      int
		size   int
		want   string
	}{
		{"over the size", FileLimits{MaxBytes: 1 << 20, MaxFiles: 10, Service: "Fake"}, 1, 3 << 19, "attachments[0] f0.bin is 1.5 MiB, over Fake's 1 MiB per file"},
		{"too many", FileLimits{MaxBytes: 1 << 20, MaxFiles: 2, Service: "Fake"}, 3, 10, "the message has 3 files, over Fake's 2 files per message"},
		{"no files", FileLimits{Service: "Fake"}, 1, 10, "Fake takes no files from this bot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePoster()
			f.limits = tc.limits
			h := newHarness(t, f)
			m := bus.Message{ID: "m1", Session: "s", Text: "with files"}
			for k := range tc.n {
				e := "m1-" + string(rune('0'+k)) + "-f.bin"
				h.putFile(e, make([]byte, tc.size))
				m.Attachments = append(m.Attachments, bus.Attachment{File: e, Name: "f" + string(rune('0'+k)) + ".bin"})
			}
			h.send(m)
			h.start()
			if got := h.failedReason("m1"); !strings.Contains(got, tc.want) {
				t.Errorf("reason %q, want it to say %q", got, tc.want)
			}
			if n := f.postCount(); n != 0 {
				t.Errorf("%d requests made, want none", n)
			}
			if left := files(t, h.dirs.Files); len(left) != tc.n {
				t.Errorf("files/ holds %v, want its %d entries kept", left, tc.n)
			}
		})
	}
}

// An entry that is not a regular file of ours is never opened or
// followed: the message fails naming it, before any request.
func TestUnsafeEntryFailsTheMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"symlink", func(p string) error { return os.Symlink("/etc/passwd", p) }, "symbolic link"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file"},
		{"missing", func(string) error { return nil }, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePoster()
			h := newHarness(t, f)
			if err := tc.make(filepath.Join(h.dirs.Files, "m1-0-x")); err != nil {
				t.Fatal(err)
			}
			h.send(bus.Message{ID: "m1", Session: "s", Text: "t", Attachments: []bus.Attachment{{File: "m1-0-x", Name: "x"}}})
			h.start()
			if got := h.failedReason("m1"); !strings.Contains(got, "attachments[0] x") || !strings.Contains(got, tc.want) {
				t.Errorf("reason %q, want it to name attachments[0] x and say %q", got, tc.want)
			}
			if n := f.postCount(); n != 0 {
				t.Errorf("%d requests made, want none", n)
			}
		})
	}
}

// An upload whose answer was lost is looked up before any re-post, the
// token it staged handed back: the file is at the service once.
func TestLostUploadIsLookedUpWithItsStagedToken(t *testing.T) {
	f := newFakePoster()
	f.stage = true
	h := newHarness(t, f)
	h.putFile("m1-0-a.txt", []byte("hello"))
	h.send(bus.Message{ID: "m0", Session: "s", Text: "first"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	f.mu.Lock()
	f.acceptFail = 1
	f.mu.Unlock()
	h.send(bus.Message{ID: "m1", Session: "s", Attachments: []bus.Attachment{{File: "m1-0-a.txt", Name: "a.txt"}}})
	h.waitFor("posted", h.outboxEmpty)
	th := f.sessionThread("s")
	if got := f.files(th); len(got) != 1 || got[0].key != "m1/file:0" {
		t.Fatalf("files %+v, want m1/file:0 once", got)
	}
	f.mu.Lock()
	staged := slices.Clone(f.staged)
	f.mu.Unlock()
	if len(staged) != 2 || staged[0] != "" || staged[1] == "" {
		t.Errorf("Staged given %q, want none on the post, the token on the lookup", staged)
	}
}

// A file part attempted for some content is never re-posted with other
// content under the same key: a crash between the attempt and the done,
// then the entry rewritten, fails the message.
func TestChangedEntryAfterAnAttemptFailsTheMessage(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "m0", Session: "s", Text: "first"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	h.stop()
	th := f.sessionThread("s")
	m := bus.Message{ID: "m1", Session: "s", Attachments: []bus.Attachment{{File: "m1-0-a.txt", Name: "a.txt"}}}
	j, err := bus.OpenJournal(journalPath(h.dirs))
	if err != nil {
		t.Fatal(err)
	}
	rec := bus.Record{Op: bus.OpAttempt, ID: "m1", Part: bus.FilePart(0), Session: "s", Thread: th, At: time.Now().Add(-time.Hour).UnixMilli(),
		Sum: bus.MessageSum(m), File: "m1-0-a.txt", Name: "a.txt", ContentType: "text/plain; charset=utf-8", Size: 5, FileSum: hexSum([]byte("hello"))}
	if err := j.Append(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	h.putFile("m1-0-a.txt", []byte("HELLO"))
	h.send(m)
	h.start()
	if got := h.failedReason("m1"); !strings.Contains(got, "attachments[0] a.txt changed since its upload was attempted") {
		t.Errorf("reason %q", got)
	}
	if got := f.files(th); len(got) != 0 {
		t.Errorf("files %+v posted, want none", got)
	}
}

// redact: true scrubs a text file as it scrubs text; a binary file is
// sent as it is.
func TestRedactScrubsTextFilesOnly(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Verbose: true, Limit: f.PartLimit(), Redact: true}
	secret := "token xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv here\n"
	bin := append([]byte{0, 1, 2, 0xff}, []byte(secret)...)
	h.putFile("m1-0-a.log", []byte(secret))
	h.putFile("m1-1-b.bin", bin)
	h.send(bus.Message{ID: "m1", Session: "s", Text: "t", Attachments: []bus.Attachment{
		{File: "m1-0-a.log", Name: "a.log"}, {File: "m1-1-b.bin", Name: "b.bin", ContentType: "application/octet-stream"},
	}})
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	got := f.files(f.sessionThread("s"))
	scrubbed := redact.Content(secret, "")
	if scrubbed == secret {
		t.Fatal("the test's secret is not one redact scrubs")
	}
	if len(got) != 2 || got[0].sum != hexSum([]byte(scrubbed)) || got[1].sum != hexSum(bin) {
		t.Errorf("files %+v; want a.log scrubbed (%s), b.bin as it is (%s)", got, hexSum([]byte(scrubbed)), hexSum(bin))
	}
}

// longTextAsFile: a text of more parts posts its first part and the
// whole text as <id>.md.
func TestLongTextAsFile(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.render = RenderOptions{Verbose: true, Limit: f.PartLimit(), LongTextAsFile: 2}
	long := strings.TrimSpace(strings.Repeat("a line of the long text\n", 20))
	rd := Render(bus.Message{ID: "m1", Session: "s", Text: long}, h.render)
	h.send(bus.Message{ID: "m1", Session: "s", Text: long})
	h.send(bus.Message{ID: "m2", Session: "s", Text: "short"})
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	th := f.sessionThread("s")
	if rd.TextFile == nil || len(rd.Parts) != 1 {
		t.Fatalf("rendered %+v, want one part and the text file", rd)
	}
	if got := f.texts(th); !slices.Equal(got, []string{rd.Parts[0], "", "short"}) {
		t.Errorf("thread holds %q", got)
	}
	want := []fakeUpload{{key: "m1/file:text", name: "m1.md", ctype: "text/markdown; charset=utf-8", sum: hexSum([]byte(long)), size: int64(len(long))}}
	if got := f.files(th); !slices.Equal(got, want) {
		t.Errorf("files %+v, want %+v", got, want)
	}
}

func TestLimitTexts(t *testing.T) {
	for _, tc := range []struct {
		n         int64
		size, lim string
	}{
		{12 << 20, "12.0 MiB", "12 MiB"},
		{10 << 20, "10.0 MiB", "10 MiB"},
		{50_000_000, "47.7 MiB", "50 MB"},
		{1 << 30, "1.0 GiB", "1 GiB"},
		{512, "512 bytes", "512 bytes"},
	} {
		if got := sizeText(tc.n); got != tc.size {
			t.Errorf("sizeText(%d) = %q, want %q", tc.n, got, tc.size)
		}
		if got := limitText(tc.n); got != tc.lim {
			t.Errorf("limitText(%d) = %q, want %q", tc.n, got, tc.lim)
		}
	}
	lim := FileLimits{MaxBytes: 10 << 20, MaxFiles: 10, Service: "Discord"}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, ""}, {10, ""}, {11, "the message has 11 files, over Discord's 10 files per message"}} {
		if got := countLimit(tc.n, lim); got != tc.want {
			t.Errorf("countLimit(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := sizeLimit("attachments[1] report.pdf", 12<<20, lim); got != "attachments[1] report.pdf is 12.0 MiB, over Discord's 10 MiB per file" {
		t.Errorf("sizeLimit = %q", got)
	}
	if got := sizeLimit("x", 10<<20, lim); got != "" {
		t.Errorf("sizeLimit at the limit = %q, want none", got)
	}
}

// A file rewritten while its upload is read is not taken (the read fails
// at its end on the sum), and not uploaded again: its content is no
// longer the attempt's, so the message fails saying so.
func TestFileChangedDuringItsUploadFailsTheMessage(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.putFile("m1-0-a.bin", []byte("0123456789"))
	f.beforeUpload = func() { h.putFile("m1-0-a.bin", []byte("9876543210")) }
	h.send(bus.Message{ID: "m1", Session: "s", Text: "t", Attachments: []bus.Attachment{{File: "m1-0-a.bin", Name: "a.bin"}}})
	h.start()
	if got := h.failedReason("m1"); !strings.Contains(got, "attachments[0] a.bin changed since its upload was attempted") {
		t.Errorf("reason %q", got)
	}
	if got := f.files(f.sessionThread("s")); len(got) != 0 {
		t.Errorf("files %+v taken, want none", got)
	}
}

// A progress message that replaces an earlier one and carries a file is
// never coalesced away by a later edit: its file is posted.
func TestAReplacingMessageWithFilesIsNotCoalescedAway(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "m1", Session: "s", Text: "step 1"})
	h.start()
	h.waitFor("m1 posted", h.outboxEmpty)
	h.stop()
	h.putFile("m2-0-a.txt", []byte("the log"))
	h.send(bus.Message{ID: "m2", Session: "s", Replaces: "m1", Text: "step 2", Attachments: []bus.Attachment{{File: "m2-0-a.txt", Name: "a.txt"}}})
	h.send(bus.Message{ID: "m3", Session: "s", Replaces: "m1", Text: "step 3"})
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	if got := f.files(f.sessionThread("s")); len(got) != 1 || got[0].sum != hexSum([]byte("the log")) {
		t.Errorf("files %+v, want m2's file once", got)
	}
}

// A token a file part staged is in the journal: after a crash between
// the stage and the done, the lookup is handed it back.
func TestStagedTokenSurvivesARestart(t *testing.T) {
	f := newFakePoster()
	h := newHarness(t, f)
	h.send(bus.Message{ID: "m0", Session: "s", Text: "first"})
	h.start()
	h.waitFor("first posted", h.outboxEmpty)
	h.stop()
	th := f.sessionThread("s")
	m := bus.Message{ID: "m1", Session: "s", Attachments: []bus.Attachment{{File: "m1-0-a.txt", Name: "a.txt", ContentType: "text/plain"}}}
	h.putFile("m1-0-a.txt", []byte("hello"))
	j, err := bus.OpenJournal(journalPath(h.dirs))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour).UnixMilli()
	recs := []bus.Record{
		{Op: bus.OpAttempt, ID: "m1", Part: bus.FilePart(0), Session: "s", Thread: th, At: at, Sum: bus.MessageSum(m),
			File: "m1-0-a.txt", Name: "a.txt", ContentType: "text/plain", Size: 5, FileSum: hexSum([]byte("hello"))},
		{Op: bus.OpStage, ID: "m1", Part: bus.FilePart(0), Session: "s", Thread: th, Remote: "F42", At: at},
	}
	if err := j.Append(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	h.send(m)
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	f.mu.Lock()
	staged := slices.Clone(f.staged)
	f.mu.Unlock()
	if len(staged) == 0 || staged[0] != "F42" {
		t.Errorf("the lookup and post were given Staged %q, want F42 first", staged)
	}
	if got := f.files(th); len(got) != 1 || got[0].sum != hexSum([]byte("hello")) {
		t.Errorf("files %+v, want a.txt once", got)
	}
}

// A service that takes no files gets a long text as its parts, whatever
// longTextAsFile says.
func TestLongTextStaysTextWhereNoFilesAreTaken(t *testing.T) {
	f := newFakePoster()
	f.limits = FileLimits{Service: "Fake"}
	h := newHarness(t, f)
	h.render = RenderOptions{Verbose: true, Limit: f.PartLimit(), LongTextAsFile: 1}
	long := strings.TrimSpace(strings.Repeat("a line of the long text\n", 20))
	h.send(bus.Message{ID: "m1", Session: "s", Text: long})
	h.start()
	h.waitFor("posted", h.outboxEmpty)
	want := Render(bus.Message{ID: "m1", Session: "s", Text: long}, RenderOptions{Verbose: true, Limit: f.PartLimit()}).Parts
	if got := f.texts(f.sessionThread("s")); len(want) < 2 || !slices.Equal(got, want) {
		t.Errorf("thread holds %d texts, want the %d parts", len(got), len(want))
	}
}
