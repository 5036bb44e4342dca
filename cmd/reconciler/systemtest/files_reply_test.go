package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// inboxReplies are the replies landed in the session's inbox, by file
// name; the files directories beside them are not replies.
func (w *filesWorld) inboxReplies(t testing.TB, session string) map[string]bus.InboxMessage {
	t.Helper()
	out := map[string]bus.InboxMessage{}
	dir := filepath.Join(w.d.Inbox, session)
	for _, name := range dirNames(t, dir) {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		m, err := bus.DecodeInbox(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	return out
}

func (w *filesWorld) waitReplies(t testing.TB, session string, n int) map[string]bus.InboxMessage {
	t.Helper()
	var got map[string]bus.InboxMessage
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	waitDirEvents(t, ctx, w.e.paths(w.name).Dir, func() bool {
		got = w.inboxReplies(t, session)
		return len(got) >= n
	}, fmt.Sprintf("%d replies in the inbox", n))
	return got
}

// modeOf is path's mode, not following a link; 0 when it is not there.
func modeOf(path string) os.FileMode {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return fi.Mode()
}

// screenshot is a small PNG, as a person's screenshot is.
func screenshot(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for x := range 64 {
		for y := range 48 {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 200, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A reply from alice with a screenshot lands once, in
// inbox/<session>/<ts>-<id>.json listing the file, its bytes whole under
// <ts>-<id>.files/, 0600, fetched from the CDN without the token;
// reconciler inbox lists it. A file over maxInboundFileBytes (1Ki here)
// is listed skipped with its size and never downloaded. A kill -9 and
// the respawned daemon's history read land neither twice.
func TestFilesReplyWithScreenshotLands(t *testing.T) {
	t.Parallel()
	w := newFilesWorld(t, "s1", "    maxInboundFileBytes: 1Ki\n")
	e := w.e
	shot := screenshot(t)
	m1, err := e.f.discord.InjectMessage(w.thread, aliceDiscord, "here is the screen", fakediscord.File{Name: "screenshot.png", ContentType: "image/png", Content: shot})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 2<<10)
	m2, err := e.f.discord.InjectMessage(w.thread, aliceDiscord, "and the log", fakediscord.File{Name: "build.log", ContentType: "text/plain", Content: big})
	if err != nil {
		t.Fatal(err)
	}
	got := w.waitReplies(t, "s1", 2)
	byID := map[string]string{}
	for name, m := range got {
		byID[m.ID] = name
	}
	sessionDir := filepath.Join(w.d.Inbox, "s1")

	name1 := byID[m1.ID]
	r1 := got[name1]
	base := strings.TrimSuffix(name1, ".json")
	if len(got) != 2 || !strings.HasSuffix(name1, "-"+m1.ID+".json") || r1.Text != "here is the screen" || r1.User != aliceDiscord || len(r1.Files) != 1 {
		t.Fatalf("the inbox holds %+v, want the two replies, the first with its file", got)
	}
	f1 := r1.Files[0]
	if f1.Name != "screenshot.png" || f1.Size != int64(len(shot)) || f1.Skipped != "" || f1.Path != base+".files/screenshot.png" {
		t.Errorf("the screenshot is listed as %+v, want screenshot.png, %d bytes, at %s.files/screenshot.png", f1, len(shot), base)
	}
	landed := filepath.Join(sessionDir, base+".files", "screenshot.png")
	b, err := os.ReadFile(landed)
	if err != nil || !bytes.Equal(b, shot) || modeOf(landed) != 0o600 {
		t.Errorf("%s: %v, %d bytes, mode %v; want the screenshot's %d bytes, 0600", landed, err, len(b), modeOf(landed), len(shot))
	}
	if m := modeOf(filepath.Dir(landed)); m != os.ModeDir|0o700 {
		t.Errorf("the files directory's mode is %v, want 0700", m)
	}

	r2 := got[byID[m2.ID]]
	if len(r2.Files) != 1 || r2.Files[0].Size != int64(len(big)) || r2.Files[0].Path != "" || !strings.Contains(r2.Files[0].Skipped, "over maxInboundFileBytes 1 KiB") {
		t.Errorf("the log is listed as %+v, want skipped over maxInboundFileBytes with its size %d", r2.Files, len(big))
	}
	if _, err := os.Lstat(filepath.Join(sessionDir, strings.TrimSuffix(byID[m2.ID], ".json")+".files", "build.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the skipped log is on disk: %v", err)
	}
	if s := e.f.discord.Snapshot(); s.Downloads != 1 || s.TokensToCDN != 0 {
		t.Errorf("the CDN served %d downloads (%d with a token), want the screenshot's alone, without", s.Downloads, s.TokensToCDN)
	}

	list := runBinary(t, nil, "inbox", "discord", "--agent-dir", e.agentDir)
	if list.code != 0 || !strings.Contains(list.stdout, "here is the screen") ||
		!strings.Contains(list.stdout, "screenshot.png") || !strings.Contains(list.stdout, base+".files/screenshot.png") ||
		!strings.Contains(list.stdout, "build.log") || !strings.Contains(list.stdout, "skipped: ") {
		t.Errorf("reconciler inbox: exit %d, stdout %q, stderr %q; want both replies with their files", list.code, list.stdout, list.stderr)
	}
	js := runBinary(t, nil, "inbox", "discord", "-o", "json", "--agent-dir", e.agentDir)
	var listed []bus.InboxFile
	for line := range strings.Lines(js.stdout) {
		var m bus.InboxMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("inbox -o json: %v in %q", err, line)
		}
		listed = append(listed, m.Files...)
	}
	if js.code != 0 || len(listed) != 2 || listed[0] != f1 || listed[1] != r2.Files[0] {
		t.Errorf("inbox -o json: exit %d, files %+v; want %+v and %+v", js.code, listed, f1, r2.Files)
	}

	// kill -9: the respawned daemon reads the thread's history again,
	// and a reply after it lands; the first two are there once, as they were.
	before := e.inbox("discord")
	pid := e.state("discord").PID
	e.killDaemons()
	e.waitRespawned("discord", pid)
	e.say("discord", w.thread, aliceDiscord, "after the restart")
	after := w.waitReplies(t, "s1", 3)
	if len(after) != 3 {
		t.Errorf("the inbox holds %d replies after the restart, want 3: %v", len(after), after)
	}
	for k, v := range before {
		if now := e.inbox("discord")[k]; now != v {
			t.Errorf("%s changed across the restart: %q, then %q", k, v, now)
		}
	}
	if b, err := os.ReadFile(landed); err != nil || !bytes.Equal(b, shot) {
		t.Errorf("the screenshot changed across the restart: %v", err)
	}
	if s := e.f.discord.Snapshot(); s.Downloads != 1 {
		t.Errorf("the CDN served %d downloads after the restart, want the first one alone", s.Downloads)
	}
}
