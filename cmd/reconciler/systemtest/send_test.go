package systemtest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
)

var ulidLine = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}\n$`)

// outboxOf lists the files send wrote for name: those in its outbox,
// and those the running daemon's relay already moved to sent/.
func (e *e2e) outboxOf(name string) []string {
	e.t.Helper()
	d, err := bus.Paths(e.agentDir, name)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, dir := range []string{d.Outbox, d.Sent} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, ent := range entries {
			out = append(out, ent.Name())
		}
	}
	return out
}

// readOutbox decodes the file of id that send wrote in name's outbox:
// there still, or in sent/ once the running daemon's relay posted it.
func (e *e2e) readOutbox(name, id string) bus.Message {
	e.t.Helper()
	d, err := bus.Paths(e.agentDir, name)
	if err != nil {
		e.t.Fatal(err)
	}
	m, err := bus.Read(filepath.Join(d.Outbox, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		m, err = bus.Read(filepath.Join(d.Sent, id+".json"))
	}
	if err != nil {
		e.t.Fatalf("outbox file of %s (in outbox/ or sent/): %v", id, err)
	}
	return m
}

// With a loop running, send from a shell without the bots' tokens goes
// through the loop (it says so in its log at V(1), and the command says
// nothing of acting directly), writes exactly the message, and prints its
// id alone on stdout. Every mistake is told before anything is written.
func TestSendThroughTheLoop(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	loop := e.startLoop("-v", "1")
	e.waitStatus("both running", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	base := []string{"--agent-dir", e.agentDir}
	send := func(stdin []byte, args ...string) result {
		return runBinaryStdin(t, nil, stdin, append(append([]string{"send"}, args...), base...)...)
	}

	r := send(nil, "discord", "--session", "agent:1", "--event", "open", "--title", "Build 42", "--level", "action", "hello <@here> & more")
	if r.code != 0 || !ulidLine.MatchString(r.stdout) || r.stderr != "" {
		t.Fatalf("send: exit %d, stdout %q (want one ULID line), stderr %q", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	want := bus.Message{ID: id, Session: "agent:1", Event: bus.EventOpen, Title: "Build 42", Text: "hello <@here> & more", Level: bus.LevelAction}
	if got := e.readOutbox("discord", id); !got.Equal(want) {
		t.Errorf("outbox file: %+v, want %+v", got, want)
	}
	loop.logs.waitLog(t, "the loop served the send", func(lines []map[string]any) bool {
		for _, m := range lines {
			if m["msg"] == "local API request" && m["path"] == localapi.PathSend {
				return true
			}
		}
		return false
	})

	// The same --id and text again is the same message: one file.
	for range 2 {
		r := send(nil, "slack", "--session", "s", "--id", "retry-1", "same text")
		if r.code != 0 || r.stdout != "retry-1\n" {
			t.Fatalf("send --id retry-1: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	}
	if files := e.outboxOf("slack"); len(files) != 1 || files[0] != "retry-1.json" {
		t.Errorf("slack outbox: %v, want only retry-1.json", files)
	}
	r = send(nil, "slack", "--session", "s", "--id", "retry-1", "other text")
	if r.code != 1 || r.stdout != "" || !regexp.MustCompile(`"retry-1": id already used (by a sent message )?with different content`).MatchString(r.stderr) {
		t.Errorf("the id with other text: exit %d, stdout %q, stderr %q; want 1 naming the id", r.code, r.stdout, r.stderr)
	}
	if got := e.readOutbox("slack", "retry-1"); got.Text != "same text" {
		t.Errorf("the first message changed: %+v", got)
	}

	// The text from stdin, as it is.
	text := "line 1\n\n```go\nfmt.Println(\"é\")\n```\n"
	r = send([]byte(text), "slack", "--session", "s", "--id", "stdin-1", "-")
	if r.code != 0 || r.stdout != "stdin-1\n" {
		t.Fatalf("send -: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := e.readOutbox("slack", "stdin-1"); got.Text != text {
		t.Errorf("stdin text: %q, want %q", got.Text, text)
	}

	// Mistakes: exit 2, the cause named, nothing written.
	for _, c := range []struct {
		name  string
		stdin []byte
		args  []string
		says  string
	}{
		{"unknown name", nil, []string{"discrod", "--session", "s", "x"}, `unknown daemon "discrod"`},
		{"invalid event", nil, []string{"discord", "--session", "s", "--event", "edit", "x"}, "event: must be one of message, open, close, ask"},
		{"invalid level", nil, []string{"discord", "--session", "s", "--level", "warn", "x"}, "level: must be one of info, action, error"},
		{"invalid session", nil, []string{"discord", "--session", "a b", "x"}, "session: must match"},
		{"no session", nil, []string{"discord", "x"}, "--session is required"},
		{"stdin over 1 MiB", bytes.Repeat([]byte("x"), bus.MaxTextSize+1), []string{"discord", "--session", "s", "-"}, "more than 1048576 bytes"},
		{"invalid UTF-8 on stdin", []byte("ok\xff"), []string{"discord", "--session", "s", "-"}, "text: must be valid UTF-8"},
		{"not a name", nil, []string{"../discord", "--session", "s", "x"}, "is not a daemon name"},
	} {
		r := send(c.stdin, c.args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 with %q", c.name, r.code, r.stdout, r.stderr, c.says)
		}
	}
	if files := e.outboxOf("discord"); len(files) != 1 {
		t.Errorf("discord outbox after the mistakes: %v, want only the first message", files)
	}
	if _, err := os.Lstat(filepath.Join(e.agentDir, "sdk", "bus", "discrod")); !os.IsNotExist(err) {
		t.Errorf("a bus was made for an unknown name: %v", err)
	}
}

// With no loop answering, send writes the file itself and says so on
// stderr; a shell without the tokens reads the spec as invalid, and the
// daemon dir stands in for it.
func TestSendDirectly(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	base := []string{"--agent-dir", e.agentDir}
	sock := localapi.SocketPath(e.agentDir)

	// An info message, which slack's lean verbosity leaves out: said.
	r := runBinary(t, e.env, append([]string{"send", "slack", "--session", "s", "--id", "d-1", "with tokens"}, base...)...)
	if r.code != 0 || r.stdout != "d-1\n" || r.stderr != "no loop answering on "+sock+": acting directly\n"+
		"send: slack has verbosity: lean, which leaves info messages out: this one is not posted (it moves to sent/ and counts as filtered); give --level action or error to have it posted, or set verbosity: verbose\n" {
		t.Fatalf("send without a loop: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := e.readOutbox("slack", "d-1"); !got.Equal(bus.Message{ID: "d-1", Session: "s", Event: bus.EventMessage, Text: "with tokens", Level: bus.LevelInfo}) {
		t.Errorf("outbox file: %+v", got)
	}
	// Without the tokens and without a daemon dir, the name cannot be
	// told from a typo: refused, and the reason says why.
	r = runBinary(t, nil, append([]string{"send", "slack", "--session", "s", "x"}, base...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "the spec is invalid as read here") {
		t.Fatalf("send without tokens or a daemon dir: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	e.mustConverge() // starts slack: its daemon dir
	r = runBinary(t, nil, append([]string{"send", "slack", "--session", "s", "--id", "d-2", "no tokens"}, base...)...)
	if r.code != 0 || r.stdout != "d-2\n" || !strings.Contains(r.stderr, "acting directly") ||
		!strings.Contains(r.stderr, "the spec as read here does not say slack's verbosity: under lean, the default, this info message is not posted") {
		t.Fatalf("send without tokens, with a daemon dir: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := e.readOutbox("slack", "d-2"); got.Text != "no tokens" {
		t.Errorf("outbox file: %+v", got)
	}
	r = runBinary(t, e.env, append([]string{"send", "slakc", "--session", "s", "x"}, base...)...)
	if r.code != 2 || !strings.Contains(r.stderr, `unknown daemon "slakc": not in the spec`) {
		t.Errorf("unknown name without a loop: exit %d, stderr %q", r.code, r.stderr)
	}
}
