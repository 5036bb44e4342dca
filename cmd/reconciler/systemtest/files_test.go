package systemtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
// about 1 MiB; every fifth without text) into session of daemon name:
// the even ones with the built binary's send --file, the odd ones as
// another producer does (produce).
func (e *e2e) writeBurst(d bus.Dirs, name, session string, n int) burst {
	t := e.t
	t.Helper()
	src := t.TempDir()
	b := burst{sent: map[string][]postedFile{}}
	for i := range n {
		id := fmt.Sprintf("b%03d", i)
		text := fmt.Sprintf("burst line %03d", i)
		if i%5 == 4 {
			text = "" // files alone: the message's first request is an upload
		}
		var paths []string
		if text != "" {
			b.order = append(b.order, "text "+text)
		}
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
// under accepted-then-reset (then accepted-then-502) faults at the fake
// and a kill -9 of the daemon while a post is in flight: every file is in the thread exactly
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
	e.f.discord.AcceptThenFail(3, fakediscord.FailBadGateway)
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
	failed := map[int]int{} // accepted posts answered with a reset (0) or a 502
	for _, r := range e.f.discord.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/channels/"+w.thread+"/messages") {
			failed[r.Status]++
		}
	}
	if failed[0] < 3 || failed[502] < 3 {
		t.Errorf("%d posts were accepted then reset and %d then answered 502, want at least 3 of each: the faults did not happen", failed[0], failed[502])
	}
	checkFilesSent(t, w.d, sent)
}
