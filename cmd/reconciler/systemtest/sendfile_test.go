package systemtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
)

// send --file copies each file into the bus's files/ (0600, whole) and
// writes the message naming them; a link, a FIFO or a directory is
// refused before anything is written, and no FIFO hangs it.
func TestSendFile(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	base := []string{"--agent-dir", e.agentDir}
	src := t.TempDir()
	report := filepath.Join(src, "report final.txt")
	shot := filepath.Join(src, "shot")
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 4000)...)
	if err := os.WriteFile(report, []byte("all green\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, e.env, append([]string{"send", "slack", "--session", "s", "--id", "f-1", "--level", "action",
		"--file", report, "--file", shot, "see attached"}, base...)...)
	if r.code != 0 || r.stdout != "f-1\n" {
		t.Fatalf("send --file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got := e.readOutbox("slack", "f-1")
	want := []bus.Attachment{
		{File: "f-1-0-report_final.txt", Name: "report final.txt", ContentType: "text/plain; charset=utf-8"},
		{File: "f-1-1-shot", Name: "shot", ContentType: "image/png"},
	}
	if len(got.Attachments) != 2 || got.Attachments[0] != want[0] || got.Attachments[1] != want[1] {
		t.Fatalf("attachments %+v, want %+v", got.Attachments, want)
	}
	d, err := bus.Paths(e.agentDir, "slack")
	if err != nil {
		t.Fatal(err)
	}
	for i, content := range [][]byte{[]byte("all green\n"), png} {
		p := filepath.Join(d.Files, want[i].File)
		data, err := os.ReadFile(p)
		st, serr := os.Stat(p)
		if err != nil || serr != nil || !bytes.Equal(data, content) || st.Mode().Perm() != 0o600 {
			t.Errorf("files/%s: %v %v, mode %v, want the file's bytes, 0600", want[i].File, err, serr, st.Mode())
		}
	}

	fifo := filepath.Join(src, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(src, "link")
	if err := os.Symlink(report, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, says string }{
		{fifo, "is not a regular file"}, {link, "is a symbolic link"}, {src, "is not a regular file"},
	} {
		r := runBinary(t, e.env, append([]string{"send", "slack", "--session", "s", "--id", "f-2", "--level", "action", "--file", tc.path, "x"}, base...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("send --file %s: exit %d, stderr %q; want 2 saying %q", tc.path, r.code, r.stderr, tc.says)
		}
	}
	if names := e.outboxOf("slack"); len(names) != 1 {
		t.Errorf("outbox and sent/ hold %v, want f-1 alone", names)
	}
	if ents, _ := os.ReadDir(d.Files); len(ents) != 2 {
		t.Errorf("files/ holds %d entries, want f-1's 2", len(ents))
	}
}
