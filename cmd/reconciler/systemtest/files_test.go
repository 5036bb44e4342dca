package systemtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/reconcile"
)

// Files both ways, end to end (issue 33, DESIGN 5 "Files"): the built
// binary's send --file and a producer's files/ entries to the Discord
// fake, and a person's files back to the inbox.

// filesBot is the Discord bot of the files tests: every message posted,
// alice authorized; more is more lines of its provider block.
func filesBot(more string) object {
	return object{name: "discord", provider: "discord", generation: 1, extra: "  verbosity: verbose\n",
		providerExtra: "    authorizedUserIds: [\"" + aliceDiscord + "\"]\n" + more}
}

// filesWorld is the bot under a running loop with one session's thread open.
type filesWorld struct {
	e      *e2e
	name   string
	d      bus.Dirs
	thread string
	loop   *loopProc
}

func newFilesWorld(t testing.TB, session, more string) *filesWorld {
	t.Helper()
	e := newE2E(t)
	e.writeSpec(filesBot(more))
	w := &filesWorld{e: e, name: "discord", loop: e.startLoop()}
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	w.thread = e.openSession("discord", session)
	w.d = e.bus(w.name)
	return w
}

// postedFile is a file as the service holds it: compared by name, size
// and SHA-256, so a cut or doubled upload shows.
type postedFile struct {
	Name string
	Size int64
	Sum  string
}

func (f postedFile) String() string {
	return fmt.Sprintf("%s (%d bytes, %.12s)", f.Name, f.Size, f.Sum)
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// threadFiles are the files the bot posted in thread, in the order the
// service stored them.
func threadFiles(s fakediscord.Snapshot, thread string) []postedFile {
	var out []postedFile
	for _, m := range s.In(thread) {
		if !m.Bot {
			continue
		}
		for _, a := range m.Attachments {
			out = append(out, postedFile{a.Name(), a.Size, a.Sum})
		}
	}
	return out
}

// threadTexts are the bot's texts in thread with prefix, in order.
func threadTexts(s fakediscord.Snapshot, thread, prefix string) []string {
	var out []string
	for _, m := range s.In(thread) {
		if m.Bot && strings.HasPrefix(m.Content, prefix) {
			out = append(out, m.Content)
		}
	}
	return out
}

// threadPosts are the bot's posts in thread, in order: "text <content>"
// for a text with prefix, "file <name>" for each file.
func threadPosts(s fakediscord.Snapshot, thread, prefix string) []string {
	var out []string
	for _, m := range s.In(thread) {
		if !m.Bot {
			continue
		}
		if strings.HasPrefix(m.Content, prefix) {
			out = append(out, "text "+m.Content)
		}
		for _, a := range m.Attachments {
			out = append(out, "file "+a.Name())
		}
	}
	return out
}

// checkFilesSent checks the bus after a burst: nothing failed, files/ is
// empty, and each message is in sent/ with its files (by name and
// SHA-256, in order) in sent/<id>.files/.
func checkFilesSent(t testing.TB, d bus.Dirs, sent map[string][]postedFile) {
	t.Helper()
	if failed := dirNames(t, d.Failed); len(failed) != 0 {
		t.Errorf("failed/ holds %v", failed)
	}
	if left := dirNames(t, d.Files); len(left) != 0 {
		t.Errorf("files/ still holds %v", left)
	}
	for id, files := range sent {
		dir := filepath.Join(d.Sent, bus.SentFilesDir(id))
		names := dirNames(t, dir)
		if len(names) != len(files) {
			t.Errorf("sent/%s holds %v, want %d files", bus.SentFilesDir(id), names, len(files))
			continue
		}
		slices.Sort(names) // <id>-<k>-<name>: in k's order
		for k, name := range names {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !strings.HasSuffix(name, files[k].Name) || sumOf(b) != files[k].Sum {
				t.Errorf("sent/%s/%s (%v): not %v", bus.SentFilesDir(id), name, err, files[k])
			}
		}
		if _, err := os.Stat(filepath.Join(d.Sent, id+".json")); err != nil {
			t.Errorf("message %s: not in sent/: %v", id, err)
		}
	}
}

// burst is what writeBurst wrote: the files the service must end up
// holding, in order; the posts, as "text <text>" and "file <name>"; each
// message's files by its id.
type burst struct {
	files []postedFile
	order []string
	sent  map[string][]postedFile
}

// writeBurst writes n messages with one to three files each (20 KiB to
// about 1 MiB) into session of daemon name: the even ones with the built
// binary's send --file, the odd ones as another producer does (produce).
func (e *e2e) writeBurst(d bus.Dirs, name, session string, n int) burst {
	t := e.t
	t.Helper()
	src := t.TempDir()
	b := burst{sent: map[string][]postedFile{}}
	for i := range n {
		id := fmt.Sprintf("b%03d", i)
		text := fmt.Sprintf("burst line %03d", i)
		var paths []string
		b.order = append(b.order, "text "+text)
		for k := range 1 + i%3 {
			p, f := randomFile(t, src, fmt.Sprintf("m%03d-%d.bin", i, k), 20<<10+(i*7+k*13)%16*64<<10)
			paths = append(paths, p)
			b.files = append(b.files, f)
			b.sent[id] = append(b.sent[id], f)
			b.order = append(b.order, "file "+f.Name)
		}
		if i%2 == 1 {
			produce(t, d, bus.Message{ID: id, Session: session, Text: text}, paths...)
			continue
		}
		args := []string{name, "--session", session, "--id", id}
		for _, p := range paths {
			args = append(args, "--file", p)
		}
		if r := e.sendWithin(append(args, text)...); r.code != 0 || r.stdout != id+"\n" {
			t.Fatalf("send --file (message %s): exit %d, stdout %q, stderr %q", id, r.code, r.stdout, r.stderr)
		}
	}
	return b
}

// randomFile writes size random bytes to dir/name and returns its path
// and what the service must end up holding.
func randomFile(t testing.TB, dir, name string, size int) (string, postedFile) {
	t.Helper()
	b := make([]byte, size)
	_, _ = rand.Read(b)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, postedFile{name, int64(size), sumOf(b)}
}

// produce is what a producer other than send does: copies the file at
// src into files/ (temp, then rename: the relay never sees half an
// entry), then writes the message naming it.
func produce(t testing.TB, d bus.Dirs, m bus.Message, srcs ...string) {
	t.Helper()
	for k, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		entry := fmt.Sprintf("%s-%d-%s", m.ID, k, filepath.Base(src))
		tmp := filepath.Join(d.Files, "."+entry+".tmp")
		if err := os.WriteFile(tmp, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(d.Files, entry)); err != nil {
			t.Fatal(err)
		}
		m.Attachments = append(m.Attachments, bus.Attachment{File: entry, Name: filepath.Base(src), ContentType: "application/octet-stream"})
	}
	if _, err := bus.Write(d.Outbox, m); err != nil {
		t.Fatal(err)
	}
}

// sendWithin runs the built binary's send with a deadline: a source it
// must refuse (a FIFO) must not hang it.
func (e *e2e) sendWithin(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(append([]string{"send"}, args...), "--agent-dir", e.agentDir)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	r := runCmd(e.t, cmd)
	if ctx.Err() != nil {
		e.t.Fatalf("send %v: still running at the deadline; stdout %q, stderr %q", args, r.stdout, r.stderr)
	}
	return r
}

// dirNames lists dir's entries that are not hidden (temp files are).
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A burst of messages with files, half written by the built binary's
// send --file and half by a producer writing files/ and the outbox,
// under accepted-then-reset faults at the fake and a kill -9 of the
// daemon while a post is in flight: every file is in the thread exactly
// once, whole (name, size, SHA-256), in order, after its message's text;
// nothing failed; files/ is empty and each message's files went with it
// to sent/<id>.files/.
func TestFilesBurstExactlyOnceAcrossKill9(t *testing.T) {
	t.Parallel()
	w := newFilesWorld(t, "burst", "")
	e := w.e
	e.f.discord.AcceptThenFail(3, fakediscord.FailCut)
	b := e.writeBurst(w.d, "discord", "burst", 16)
	want, sent := b.files, b.sent

	// The kill comes while a post is in the service's hands: held there,
	// dropped unstored when its client dies.
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eDeadline)
	defer cancel()
	if _, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(threadFiles(s, w.thread)) >= len(want)/4 }); err != nil {
		t.Fatalf("the burst did not start: %v", err)
	}
	e.f.discord.HoldPosts()
	if _, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Held > 0 }); err != nil {
		t.Fatalf("no post held: %v", err)
	}
	pid := e.state("discord").PID
	e.killDaemons()
	e.f.discord.Release()
	e.f.discord.AcceptThenFail(3, fakediscord.FailCut)
	e.waitRespawned("discord", pid)

	s, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(threadFiles(s, w.thread)) >= len(want) })
	if err != nil {
		t.Fatalf("the burst did not finish: %v; the thread holds %d of %d files", err, len(threadFiles(s, w.thread)), len(want))
	}
	e.waitOutboxEmpty("discord")
	s = e.f.discord.Snapshot()
	if got := threadFiles(s, w.thread); !slices.Equal(got, want) {
		t.Errorf("the thread holds %d files, want %d once each, in order:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	if got := threadPosts(s, w.thread, "burst line "); !slices.Equal(got, b.order) {
		t.Errorf("the thread's posts: %q, want each message's text then its files, once each, in order:\n%q", got, b.order)
	}
	if len(s.Duplicates) != 0 {
		t.Errorf("the fake stored nonces twice: %v", s.Duplicates)
	}
	cuts := 0
	for _, r := range e.f.discord.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/channels/"+w.thread+"/messages") && r.Status == 0 {
			cuts++
		}
	}
	if cuts < 3 {
		t.Errorf("%d posts were accepted then cut, want at least 3: the faults did not happen", cuts)
	}
	checkFilesSent(t, w.d, sent)
}

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
	if !strings.Contains(rec.Reason, "huge.bin") || !strings.Contains(rec.Reason, "over Discord's 10 MiB per file") {
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
	if len(r2.Files) != 1 || r2.Files[0].Size != int64(len(big)) || r2.Files[0].Path != "" || !strings.Contains(r2.Files[0].Skipped, "maxInboundFileBytes") {
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
