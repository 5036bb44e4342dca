package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// inboxWorld is an agent dir with daemon d1's bus, no loop and no spec:
// the bus alone makes the name known.
type inboxWorld struct {
	t        *testing.T
	agentDir string
	dirs     bus.Dirs
}

func newInboxWorld(t *testing.T) *inboxWorld {
	t.Helper()
	agentDir := t.TempDir()
	d, err := bus.Paths(agentDir, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return &inboxWorld{t: t, agentDir: agentDir, dirs: d}
}

// land publishes m as the daemon does: staged, then renamed into place.
func (w *inboxWorld) land(m bus.InboxMessage) string {
	w.t.Helper()
	file, err := bus.StageInbox(w.dirs, m)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := bus.PublishInbox(w.dirs, m.Session, file); err != nil {
		w.t.Fatal(err)
	}
	return filepath.Join(w.dirs.Inbox, m.Session, file)
}

// run runs `inbox` with a deadline: a command that blocks (on a FIFO, say)
// fails the test instead of hanging it.
func (w *inboxWorld) run(args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(append([]string{"inbox"}, args...), "--agent-dir", w.agentDir)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		w.t.Fatalf("inbox %v: still running at the deadline; stdout %q, stderr %q", args, stdout.String(), stderr.String())
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

func msg(session, id, ts, text string) bus.InboxMessage {
	return bus.InboxMessage{ID: id, Session: session, User: "U42", Text: text, TS: ts}
}

// Two sessions' messages come out as one list, oldest first (ties by id),
// each text on one line with its control and bidi characters escaped; a
// stage is never shown. --session keeps one session's; -o json gives the
// messages themselves, in the same order, with nothing raw a terminal
// would act on.
func TestInboxPrintsSessionsInOrder(t *testing.T) {
	t.Parallel()
	w := newInboxWorld(t)
	msgs := []bus.InboxMessage{
		msg("agent:1", "m3", "2026-12-02T08:00:03.000Z", "third"),
		msg("agent:2", "m1", "2026-12-02T08:00:01.000Z", "first\nline two"),
		msg("agent:1", "m2", "2026-12-02T08:00:02.000Z", "red \x1b[31m & <b> \u202eevil\u0085 \x7f"),
		msg("agent:2", "m2b", "2026-12-02T08:00:02.000Z", "tie, later id"),
	}
	for _, m := range msgs {
		w.land(m)
	}
	if _, err := bus.StageInbox(w.dirs, msg("agent:1", "m0", "2026-12-02T08:00:00.000Z", "staged, not landed")); err != nil {
		t.Fatal(err)
	}

	r := w.run("d1")
	want := "2026-12-02T08:00:01.000Z  agent:2  U42  first\\nline two\n" +
		"2026-12-02T08:00:02.000Z  agent:1  U42  red \\x1b[31m & <b> \\u202eevil\\u0085 \\x7f\n" +
		"2026-12-02T08:00:02.000Z  agent:2  U42  tie, later id\n" +
		"2026-12-02T08:00:03.000Z  agent:1  U42  third\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("warnings for a clean inbox: %s", r.stderr)
	}

	r = w.run("d1", "--session", "agent:1")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2 || strings.Contains(r.stdout, "agent:2") || !strings.Contains(r.stdout, "third") {
		t.Errorf("--session agent:1: exit %d, stdout:\n%s", r.code, r.stdout)
	}

	r = w.run("d1", "-o", "json")
	if r.code != 0 {
		t.Fatalf("-o json: exit %d: %s", r.code, r.stderr)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\u0085", "\x7f"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("-o json prints %q raw:\n%s", bad, r.stdout)
		}
	}
	order := []bus.InboxMessage{msgs[1], msgs[2], msgs[3], msgs[0]}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != len(order) {
		t.Fatalf("-o json: %d lines, want %d:\n%s", len(lines), len(order), r.stdout)
	}
	for i, l := range lines {
		var got bus.InboxMessage
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || !reflect.DeepEqual(got, order[i]) {
			t.Errorf("-o json line %d = %q (%v), want %+v", i, l, err, order[i])
		}
	}
	if !strings.Contains(r.stdout, ` & <b> `) {
		t.Errorf("-o json escapes & < >: %s", r.stdout)
	}
}

// Every kind of file that is not a landed message of its session is named
// on stderr and skipped, the rest still printed, and the exit code is 1:
// a symbolic link (to a valid message), a FIFO (read without blocking),
// garbage, another session's message, a message under another name, a
// session dir that is a link, a file where a session dir should be.
func TestInboxSkipsBadFiles(t *testing.T) {
	t.Parallel()
	w := newInboxWorld(t)
	good := w.land(msg("s1", "good", "2026-12-02T08:00:00.000Z", "kept"))
	other := w.land(msg("s2", "other", "2026-12-02T08:00:01.000Z", "of s2"))
	s1 := filepath.Dir(good)

	outside := filepath.Join(t.TempDir(), "1796198402000-linked.json")
	data, err := bus.EncodeInbox(msg("s1", "linked", "2026-12-02T08:00:02.000Z", "through a link"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(s1, "1796198402000-linked.json")
	fifo := filepath.Join(s1, "1796198403000-fifo.json")
	garbage := filepath.Join(s1, "1796198404000-garbage.json")
	misplaced := filepath.Join(s1, filepath.Base(other))
	renamed := filepath.Join(s1, "1796198405000-renamed.json")
	linkedDir := filepath.Join(w.dirs.Inbox, "s3")
	stray := filepath.Join(w.dirs.Inbox, "stray")
	must(t, os.Symlink(outside, link))
	must(t, syscall.Mkfifo(fifo, 0o600))
	must(t, os.WriteFile(garbage, []byte("\x1b]0;pwned\x07 not json"), 0o600))
	otherData, err := os.ReadFile(other)
	must(t, err)
	must(t, os.WriteFile(misplaced, otherData, 0o600))
	goodData, err := os.ReadFile(good)
	must(t, err)
	must(t, os.WriteFile(renamed, goodData, 0o600))
	must(t, os.Symlink(s1, linkedDir))
	must(t, os.WriteFile(stray, nil, 0o600))

	r := w.run("d1")
	want := "2026-12-02T08:00:00.000Z  s1  U42  kept\n2026-12-02T08:00:01.000Z  s2  U42  of s2\n"
	if r.code != 1 || r.stdout != want {
		t.Fatalf("exit %d (want 1), stdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
	}
	for _, p := range []string{link, fifo, garbage, misplaced, renamed, linkedDir, stray} {
		if n := strings.Count(r.stderr, p+":"); n != 1 {
			t.Errorf("stderr names %s %d times, want once:\n%s", p, n, r.stderr)
		}
	}
	for _, reason := range []string{"symbolic link", "not a regular file", "session \"s2\"", "whose file is named"} {
		if !strings.Contains(r.stderr, reason) {
			t.Errorf("stderr lacks %q:\n%s", reason, r.stderr)
		}
	}
	if strings.ContainsAny(r.stderr, "\x1b\x07") {
		t.Errorf("stderr carries the garbage's control characters raw: %q", r.stderr)
	}

	// -o json skips the same and exits the same.
	if r := w.run("d1", "-o", "json"); r.code != 1 || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("-o json: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	// A session without bad files is clean.
	if r := w.run("d1", "--session", "s2"); r.code != 0 || r.stdout != "2026-12-02T08:00:01.000Z  s2  U42  of s2\n" {
		t.Errorf("--session s2: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A name that is no daemon's and a session that is no session's name are
// usage errors; a known daemon whose inbox was never made, or whose
// session has no dir, prints nothing and succeeds.
func TestInboxNames(t *testing.T) {
	t.Parallel()
	w := newInboxWorld(t)
	if r := w.run("nosuch"); r.code != 2 || !strings.Contains(r.stderr, `unknown daemon "nosuch"`) {
		t.Errorf("unknown name: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.run("Not_A_Name"); r.code != 2 || !strings.Contains(r.stderr, "not a daemon name") {
		t.Errorf("invalid name: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, s := range []string{"..", ".hidden", "a/b", strings.Repeat("x", bus.MaxSessionLen+1)} {
		if r := w.run("d1", "--session", s); r.code != 2 || !strings.Contains(r.stderr, "not a session name") {
			t.Errorf("--session %q: exit %d, stderr %q", s, r.code, r.stderr)
		}
	}
	if r := w.run("d1", "-o", "yaml"); r.code != 2 {
		t.Errorf("-o yaml: exit %d, want 2", r.code)
	}
	if r := w.run("d1", "--session", "agent:9"); r.code != 0 || r.stdout != "" {
		t.Errorf("a session with no dir: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	must(t, os.Remove(w.dirs.Inbox))
	if r := w.run("d1"); r.code != 0 || r.stdout != "" {
		t.Errorf("a bus without an inbox: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A link in the inbox's place is not read through.
	elsewhere := newInboxWorld(t)
	elsewhere.land(msg("s1", "far", "2026-12-02T08:00:00.000Z", "not d1's"))
	must(t, os.Symlink(elsewhere.dirs.Inbox, w.dirs.Inbox))
	if r := w.run("d1"); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("an inbox that is a link: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// -f prints what is there, then each message as it lands: in a session
// dir it watched from the start and in one made after it started; the
// landing is the daemon's, stage then rename. SIGINT ends it with 0.
func TestInboxFollow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		noInbox bool // the bus has no inbox dir when following starts
	}{{"inbox there", false}, {"no inbox yet", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newInboxWorld(t)
			if tc.noInbox {
				must(t, os.Remove(w.dirs.Inbox))
			} else {
				w.land(msg("s1", "before", "2026-12-02T08:00:00.000Z", "there before"))
			}
			// No resync within the test: only the watch can deliver.
			cmd := exec.Command(binary, "inbox", "d1", "-f", "--resync-period", "1h", "--agent-dir", w.agentDir)
			cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
			out, errs := newLogBuffer(), newLogBuffer()
			cmd.Stdout, cmd.Stderr = out, errs
			must(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-done
			})
			if !tc.noInbox {
				out.waitText(t, "there before\n")
			}
			// Its watches are in place once it has printed, or, with
			// nothing to print, once it has looked at the spec and status
			// (the line the look writes); a message landed before is
			// printed by its first read all the same.
			errs.waitText(t, "acting directly")

			w.land(msg("s1", "later", "2026-12-02T08:00:05.000Z", "landed in s1"))
			out.waitText(t, "2026-12-02T08:00:05.000Z  s1  U42  landed in s1\n")
			w.land(msg("s2", "new", "2026-12-02T08:00:06.000Z", "in a new session"))
			out.waitText(t, "2026-12-02T08:00:06.000Z  s2  U42  in a new session\n")
			w.land(msg("s2", "next", "2026-12-02T08:00:07.000Z", "again in s2"))
			out.waitText(t, "again in s2\n")

			must(t, cmd.Process.Signal(syscall.SIGINT))
			select {
			case err := <-done:
				done <- err // for the cleanup
				if err != nil {
					t.Fatalf("after SIGINT: %v; stderr:\n%s", err, errs.String())
				}
			case <-time.After(e2eDeadline):
				t.Fatal("still running after SIGINT")
			}
			if n := strings.Count(out.String(), "\n"); n != 4-boolInt(tc.noInbox) {
				t.Errorf("printed %d lines, want each message once:\n%s", n, out.String())
			}
			if strings.Contains(errs.String(), "warning") {
				t.Errorf("warnings:\n%s", errs.String())
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A reply's files are listed under it: landed (with its path here),
// skipped and why, or not on this machine (a fleet's reply landed
// elsewhere lists them, its files stay there); the files directory is
// never taken for a message; -o json keeps the reply's listing as it is.
func TestInboxListsFiles(t *testing.T) {
	t.Parallel()
	w := newInboxWorld(t)
	m := msg("agent:1", "m1", "2026-12-02T08:00:01.000Z", "see attached")
	file, err := bus.InboxFileName(m)
	must(t, err)
	st, err := bus.StageInboxFiles(w.dirs, m.Session, file)
	must(t, err)
	name, f, err := st.Create("../shot.png")
	must(t, err)
	_, err = f.WriteString("pixels")
	must(t, err)
	must(t, f.Close())
	must(t, st.Done())
	_, err = bus.PublishInboxFiles(w.dirs, m.Session, file)
	must(t, err)
	m.Files = []bus.InboxFile{
		{Name: name, Original: "../shot.png", Path: bus.InboxFilePath(file, name), Size: 6, ContentType: "image/png"},
		{Name: "big.bin", Size: 12 << 20, Skipped: "12.0 MiB, over maxInboundFileBytes 10 MiB"},
	}
	w.land(m)
	elsewhere := msg("agent:1", "m2", "2026-12-02T08:00:02.000Z", "from the other machine")
	elsewhere.Files = []bus.InboxFile{{Name: "log.txt", Path: "1796198402000-m2.files/log.txt", Size: 2048}}
	w.land(elsewhere)

	r := w.run("d1")
	want := "2026-12-02T08:00:01.000Z  agent:1  U42  see attached\n" +
		"    file  shot.png (sent as ../shot.png)  6 B  " + filepath.Join(w.dirs.Inbox, "agent:1", file[:len(file)-5]+".files", "shot.png") + "\n" +
		"    file  big.bin  12.0 MiB  skipped: 12.0 MiB, over maxInboundFileBytes 10 MiB\n" +
		"2026-12-02T08:00:02.000Z  agent:1  U42  from the other machine\n" +
		"    file  log.txt  2.0 KiB  not on this machine (it stays where the daemon landed it)\n"
	if r.code != 0 || r.stdout != want || strings.Contains(r.stderr, "warning") {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	r = w.run("d1", "-o", "json")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("-o json: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var got bus.InboxMessage
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("-o json = %s (%v), want %+v", lines[0], err, m)
	}
}
