package systemtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// A file over Discord's 10 MiB (sparse: nothing read to make it) fails
// its message before any request: failed/ names the file and the limit,
// the fake received no post of it, its entry stays in files/ for a retry.
// send --file refuses a FIFO (without hanging on it) and a symbolic link,
// naming the path, and writes nothing.
func TestFilesOverLimitAndUnsafeSources(t *testing.T) {
	t.Parallel()
	w := newFilesWorld(t, "limits", "")
	e := w.e
	posts := e.f.discord.Snapshot().Posts

	const entry = "big-0-huge.bin"
	p := filepath.Join(w.d.Files, entry)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(fakediscord.MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.Write(w.d.Outbox, bus.Message{ID: "big", Session: "limits", Text: "too big to post",
		Attachments: []bus.Attachment{{File: entry, Name: "huge.bin"}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitDirEvents(t, ctx, w.d.Failed, func() bool { return len(dirNames(t, w.d.Failed)) > 0 }, "failed/ holds big")
	data, err := os.ReadFile(filepath.Join(w.d.Failed, "big.json"))
	if err != nil {
		t.Fatalf("failed/: %v (holds %v)", err, dirNames(t, w.d.Failed))
	}
	var rec bus.FailedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Reason, "attachments[0] huge.bin is 10.0 MiB, over Discord's 10 MiB per file") {
		t.Errorf("failed/big.json's reason %q: want it to name huge.bin and Discord's 10 MiB per file", rec.Reason)
	}
	if got := dirNames(t, w.d.Files); !slices.Equal(got, []string{entry}) {
		t.Errorf("files/ holds %v, want the failed message's entry kept", got)
	}
	// The next message of the session is posted: what the relay did
	// with big is done, and none of it reached the fake.
	if _, err := bus.Write(w.d.Outbox, bus.Message{ID: "after", Session: "limits", Text: "after the big one"}); err != nil {
		t.Fatal(err)
	}
	s, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(threadTexts(s, w.thread, "after the big one")) == 1 })
	if err != nil {
		t.Fatalf("the next message was not posted: %v", err)
	}
	if s.Posts != posts+1 || len(threadTexts(s, w.thread, "too big")) != 0 || len(threadFiles(s, w.thread)) != 0 {
		t.Errorf("the fake received %d posts (want 1, the next message's), texts %q, files %v", s.Posts-posts,
			threadTexts(s, w.thread, ""), threadFiles(s, w.thread))
	}

	src := t.TempDir()
	real, _ := randomFile(t, src, "real.txt", 100)
	fifo := filepath.Join(src, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(src, "link.txt")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{{fifo, "not a regular file"}, {link, "symbolic link"}} {
		r := e.sendWithin("discord", "--session", "limits", "--id", "refused", "--file", real, "--file", c.path, "with a bad file")
		if r.code != exitInvalid || r.stdout != "" || !strings.Contains(r.stderr, c.path) || !strings.Contains(r.stderr, c.says) {
			t.Errorf("send --file %s: exit %d, stdout %q, stderr %q; want %d naming the path and %q", c.path, r.code, r.stdout, r.stderr, exitInvalid, c.says)
		}
	}
	if got := dirNames(t, w.d.Files); !slices.Equal(got, []string{entry}) {
		t.Errorf("files/ holds %v after the refusals, want only %s", got, entry)
	}
	for _, dir := range []string{w.d.Outbox, w.d.Sent, w.d.Failed} {
		for _, name := range dirNames(t, dir) {
			if strings.HasPrefix(name, "refused") {
				t.Errorf("%s holds %s after the refusals", dir, name)
			}
		}
	}
}
