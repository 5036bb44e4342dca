package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
)

// askWorld is an agent dir whose spec declares the daemon name asks go
// to, with its bus made, and no loop: ask acts directly, as from a shell.
type askWorld struct {
	*e2e
	t    *testing.T
	name string
	dirs bus.Dirs
}

// newAskWorld is an askWorld of the Slack daemon "slack".
func newAskWorld(t *testing.T) *askWorld {
	return newAskWorldOf(t, object{name: "slack", provider: "slack", generation: 1})
}

func newAskWorldOf(t *testing.T, o object) *askWorld {
	t.Helper()
	e := newE2E(t)
	e.writeSpec(o)
	d, err := bus.Paths(e.agentDir, o.name)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return &askWorld{e2e: e, t: t, name: o.name, dirs: d}
}

func (w *askWorld) ask(args ...string) result {
	w.t.Helper()
	return runBinary(w.t, w.env, append(append([]string{"ask"}, args...), "--agent-dir", w.agentDir)...)
}

// land publishes m in the inbox as the daemon does: staged, then renamed
// into place.
func (w *askWorld) land(m bus.InboxMessage) {
	w.t.Helper()
	file, err := bus.StageInbox(w.dirs, m)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := bus.PublishInbox(w.dirs, m.Session, file); err != nil {
		w.t.Fatal(err)
	}
}

// asks are the asks in the outbox.
func (w *askWorld) asks() []bus.Message {
	w.t.Helper()
	names, err := bus.ListOutbox(w.dirs.Outbox)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []bus.Message
	for _, n := range names {
		m, err := bus.Read(filepath.Join(w.dirs.Outbox, n))
		if err != nil {
			w.t.Fatal(err)
		}
		if m.Event == bus.EventAsk {
			out = append(out, m)
		}
	}
	return out
}

// Without --wait, ask queues one outbox file, an action ask with its
// buttons and expiresAt, and prints its id alone; every mistake is told
// (exit 2) before anything is written, and a closing session is refused
// (exit 1) as send refuses it.
func TestAskQueuesAQuestion(t *testing.T) {
	t.Parallel()
	w := newAskWorld(t)
	before := time.Now()
	r := w.ask("slack", "--session", "build-42", "Deploy build 42?")
	if r.code != 0 || !ulidLine.MatchString(r.stdout) || !strings.Contains(r.stderr, "acting directly") {
		t.Fatalf("ask: exit %d, stdout %q (want one ULID line), stderr %q", r.code, r.stdout, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	m := w.readOutbox("slack", id)
	exp := m.ExpiresAtTime()
	if m.Event != bus.EventAsk || m.Session != "build-42" || m.Text != "Deploy build 42?" || m.Level != bus.LevelAction ||
		!slices.Equal(m.Choices, []string{"Approve", "Deny"}) ||
		exp.Before(before.Add(time.Hour).Truncate(time.Millisecond)) || exp.After(time.Now().Add(time.Hour)) {
		t.Errorf("outbox file: %+v; want an action ask with Approve, Deny expiring an hour from now", m)
	}

	r = w.ask("slack", "--session", "build-42", "--choice", "Ship", "--choice", "Wait", "--choice", "Abort", "--timeout", "10m", "-o", "json", "Ship?")
	var out struct{ ID, ExpiresAt string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("ask -o json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if m := w.readOutbox("slack", out.ID); !slices.Equal(m.Choices, []string{"Ship", "Wait", "Abort"}) || m.ExpiresAt != out.ExpiresAt {
		t.Errorf("outbox file %+v, printed %+v", m, out)
	}

	queued := len(w.asks())
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"a choice that is the expiry", []string{"--choice", "Go", "--choice", "Expired"}, `"expired" is what an undecided ask becomes`},
		{"six choices", []string{"--choice", "a", "--choice", "b", "--choice", "c", "--choice", "d", "--choice", "e", "--choice", "f"}, "1 to 5 choices"},
		{"a choice twice", []string{"--choice", "Go", "--choice", "GO"}, "given twice"},
		{"a choice with a newline", []string{"--choice", "Go\nnow"}, "control characters"},
		{"a long choice", []string{"--choice", strings.Repeat("x", 41)}, "at most 40 characters"},
		{"a timeout over a day", []string{"--timeout", "25h"}, "--timeout 25h0m0s: must be from 1s to 24h0m0s"},
		{"no timeout", []string{"--timeout", "0"}, "--timeout 0s"},
		{"no session", []string{"--session", ""}, "--session is required"},
		{"an invalid session", []string{"--session", "a b"}, "session: must match"},
	} {
		args := append([]string{"slack", "--session", "build-42"}, c.args...)
		r := w.ask(append(args, "Go?")...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 saying %q", c.name, r.code, r.stdout, r.stderr, c.says)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"no question", []string{"slack", "--session", "s", ""}, "an ask needs the question's text"},
		{"no TEXT", []string{"slack", "--session", "s"}, "accepts 2 arg(s)"},
		{"an unknown daemon", []string{"slakc", "--session", "s", "Go?"}, `unknown daemon "slakc"`},
	} {
		if r := w.ask(c.args...); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, c.says) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 saying %q", c.name, r.code, r.stdout, r.stderr, c.says)
		}
	}
	if n := len(w.asks()); n != queued {
		t.Errorf("%d asks queued after the mistakes, want %d", n, queued)
	}

	// A session whose close is queued takes no question.
	if r := runBinary(t, w.env, "send", "slack", "--session", "done", "--event", "close", "--agent-dir", w.agentDir); r.code != 0 {
		t.Fatalf("send close: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.ask("slack", "--session", "done", "--wait", "Go?"); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "session done is closing") {
		t.Errorf("ask in a closing session: exit %d, stdout %q, stderr %q; want 1", r.code, r.stdout, r.stderr)
	}
}

// waitingAsk is an `ask --wait` running in the background.
type waitingAsk struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan struct{} // closed once err is set
	err            error
}

// startWait starts ask --wait with args and returns it with the ask it
// queued. The inbox is read again only every hour: the watch alone must
// deliver.
func (w *askWorld) startWait(args ...string) (*waitingAsk, bus.Message) {
	w.t.Helper()
	all := append([]string{"ask", w.name, "--wait", "--resync-period", "1h", "--agent-dir", w.agentDir}, args...)
	cmd := exec.Command(binary, all...)
	cmd.Env = w.env
	return w.start(cmd)
}

// start starts cmd, which runs an ask, and returns it with the ask it
// queued, read from the outbox as soon as it is there.
func (w *askWorld) start(cmd *exec.Cmd) (*waitingAsk, bus.Message) {
	w.t.Helper()
	watch, err := dirwatch.New()
	if err != nil {
		w.t.Fatal(err)
	}
	defer watch.Close()
	changed, cancel, err := watch.Subscribe(w.dirs.Outbox, func(base string) bool { return !strings.HasPrefix(base, ".") })
	if err != nil {
		w.t.Fatal(err)
	}
	defer cancel()
	known := len(w.asks())

	p := &waitingAsk{cmd: cmd, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	w.t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	deadline := time.After(e2eDeadline)
	for {
		if asks := w.asks(); len(asks) > known {
			return p, asks[len(asks)-1] // ULIDs sort by time: the newest
		}
		select {
		case <-changed:
		case <-p.exited:
			w.t.Fatalf("%v ended before its ask was queued: %v; stdout %q, stderr %q", cmd.Args, p.err, p.stdout.String(), p.stderr.String())
		case <-deadline:
			w.t.Fatalf("%v queued no ask", cmd.Args)
		}
	}
}

// result waits for the command's end and returns what it did.
func (p *waitingAsk) result(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	select {
	case <-p.exited:
		var ee *exec.ExitError
		code := 0
		if errors.As(p.err, &ee) {
			code = ee.ExitCode()
		} else if p.err != nil {
			t.Fatal(p.err)
		}
		return result{code, p.stdout.String(), p.stderr.String()}
	case <-ctx.Done():
		t.Fatalf("ask --wait still waiting at the deadline; stdout %q, stderr %q", p.stdout.String(), p.stderr.String())
	}
	return result{}
}

// stillWaiting fails t if the command ended.
func (p *waitingAsk) stillWaiting(t *testing.T, what string) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("ask --wait ended on %s: %v; stdout %q, stderr %q", what, p.err, p.stdout.String(), p.stderr.String())
	default:
	}
}

// --wait prints the choice of its own ask's decision and nothing else,
// whatever else lands in the session meanwhile; -o json prints the whole
// decision.
func TestAskWaitReturnsTheChoice(t *testing.T) {
	t.Parallel()
	w := newAskWorld(t)
	now := time.Now()
	p, m := w.startWait("--session", "build-42", "--choice", "Ship", "--choice", "Wait", "Ship it?")
	// A reply and another ask's decision in the same session are not
	// the answer; a sync through the command's own inbox reader would
	// see them first, so the wait must pass over them.
	w.land(bus.InboxMessage{ID: "1311", Session: "build-42", User: "U1", Text: m.ID, TS: bus.InboxTime(now)})
	w.land(bus.Decision("build-42", "other-ask", "Deny", "U1", now.Add(time.Millisecond)))
	p.stillWaiting(t, "a reply and another ask's decision")
	w.land(bus.Decision("build-42", m.ID, "Wait", "U2", now.Add(2*time.Millisecond)))
	if r := p.result(t); r.code != 0 || r.stdout != "Wait\n" {
		t.Errorf("ask --wait: exit %d, stdout %q, stderr %q; want 0 and the choice alone", r.code, r.stdout, r.stderr)
	}

	p, m = w.startWait("--session", "build-43", "-o", "json", "Go?")
	want := bus.Decision("build-43", m.ID, "Approve", "U2", now)
	w.land(want)
	r := p.result(t)
	var got bus.InboxMessage
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ask --wait -o json: exit %d, stdout %q, stderr %q; want 0 and %+v", r.code, r.stdout, r.stderr, want)
	}
}

// Nobody decided: the daemon's "expired" is exit 5 with nothing on
// stdout (the decision with -o json), and so is a --timeout that passes
// with no decision at all.
func TestAskWaitExitsFiveWhenNobodyDecided(t *testing.T) {
	t.Parallel()
	w := newAskWorld(t)
	p, m := w.startWait("--session", "s1", "Go?")
	w.land(bus.Decision("s1", m.ID, bus.ChoiceExpired, "", m.ExpiresAtTime()))
	if r := p.result(t); r.code != 5 || r.stdout != "" || !strings.Contains(r.stderr, "expired: nobody decided in time") {
		t.Errorf("expired: exit %d, stdout %q, stderr %q; want 5, nothing on stdout", r.code, r.stdout, r.stderr)
	}

	p, m = w.startWait("--session", "s2", "-o", "json", "Go?")
	want := bus.Decision("s2", m.ID, bus.ChoiceExpired, "", m.ExpiresAtTime())
	w.land(want)
	r := p.result(t)
	var got bus.InboxMessage
	if r.code != 5 || json.Unmarshal([]byte(r.stdout), &got) != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("expired -o json: exit %d, stdout %q, stderr %q; want 5 and %+v", r.code, r.stdout, r.stderr, want)
	}

	start := time.Now()
	p, m = w.startWait("--session", "s3", "--timeout", "1s", "--expiry-grace", "0s", "Go?")
	r = p.result(t)
	if r.code != 5 || r.stdout != "" || !strings.Contains(r.stderr, "ask "+m.ID+": no decision landed by "+m.ExpiresAt) {
		t.Errorf("--timeout: exit %d, stdout %q, stderr %q; want 5 naming the ask", r.code, r.stdout, r.stderr)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("--timeout 1s gave up after %v", took)
	}
}

// inbox shows decisions among the replies, in time order, each with its
// choice and its ask (an expiry with no one), and -o json gives each as
// it landed.
func TestInboxShowsDecisions(t *testing.T) {
	t.Parallel()
	w := newInboxWorld(t)
	at := func(ms int) time.Time { return time.Date(2026, 12, 6, 9, 0, 0, ms*int(time.Millisecond), time.UTC) }
	msgs := []bus.InboxMessage{
		msg("build-42", "m1", bus.InboxTime(at(1)), "the tests on arm64 fail"),
		bus.Decision("build-42", "01JEX4S6ZQ0V3M7W9CD2H8KTRB", "Approve", "U42", at(2)),
		bus.Decision("build-43", "01JEX4S6ZQ0V3M7W9CD2H8KTRC", bus.ChoiceExpired, "", at(3)),
	}
	for _, m := range msgs {
		w.land(m)
	}
	r := w.run("d1")
	want := "2026-12-06T09:00:00.001Z  build-42  U42  the tests on arm64 fail\n" +
		"2026-12-06T09:00:00.002Z  build-42  U42  decided: Approve (ask 01JEX4S6ZQ0V3M7W9CD2H8KTRB)\n" +
		"2026-12-06T09:00:00.003Z  build-43  -  expired: nobody decided (ask 01JEX4S6ZQ0V3M7W9CD2H8KTRC)\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	r = w.run("d1", "-o", "json")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != len(msgs) {
		t.Fatalf("-o json: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	for i, l := range lines {
		var got bus.InboxMessage
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || !reflect.DeepEqual(got, msgs[i]) {
			t.Errorf("-o json line %d = %q (%v), want %+v", i, l, err, msgs[i])
		}
	}
}

// With a loop running, ask queues through the loop's API (from a shell
// without the tokens, saying nothing of acting directly) and --wait
// answers from the inbox all the same.
func TestAskThroughTheLoop(t *testing.T) {
	t.Parallel()
	w := newAskWorld(t)
	w.writeSpec(object{name: "slack", provider: "slack", generation: 1, state: "Stopped"})
	loop := w.startLoop("-v", "1")
	loop.logs.waitLog(t, "the loop serves its API", func(lines []map[string]any) bool {
		return slices.ContainsFunc(lines, func(m map[string]any) bool { return m["msg"] == "local API serving" })
	})
	w.env = nil // the operator's shell: no tokens
	p, m := w.startWait("--session", "build-42", "Go?")
	w.land(bus.Decision("build-42", m.ID, "Approve", "U42", time.Now()))
	if r := p.result(t); r.code != 0 || r.stdout != "Approve\n" || strings.Contains(r.stderr, "acting directly") {
		t.Errorf("ask --wait through the loop: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	loop.logs.waitLog(t, "the loop served the ask", func(lines []map[string]any) bool {
		return slices.ContainsFunc(lines, func(m map[string]any) bool {
			return m["msg"] == "local API request" && m["path"] == localapi.PathSend
		})
	})
}

// A running Slack daemon posts the ask, and, nobody deciding it, lands
// "expired" at its expiresAt: ask --wait exits 5 on the daemon's verdict
// (not on its own timeout), the question is edited in place to say it
// expired, and status counts the expiry (ASKS in -o wide).
func TestAskExpiresThroughTheDaemon(t *testing.T) {
	t.Parallel()
	w := newAskWorld(t)
	w.startLoop()
	w.waitStatus("slack running", func(s *reconcile.Status) bool { return countReady(s) == 1 })

	p, m := w.startWait("--session", "exp-1", "--timeout", "2s", "Deploy build 42?")
	r := p.result(t)
	if r.code != 5 || r.stdout != "" || !strings.Contains(r.stderr, "ask "+m.ID+" expired: nobody decided in time") {
		t.Fatalf("ask --wait: exit %d, stdout %q, stderr %q; want 5 on the daemon's expiry", r.code, r.stdout, r.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	if _, err := w.f.slack.WaitFor(ctx, func(s fakeslack.Snapshot) bool {
		// One message, edited in place (an action's mark before the text).
		var asked []string
		for _, msg := range s.Messages {
			if strings.Contains(msg.Text, "Deploy build 42?") {
				asked = append(asked, msg.Text)
			}
		}
		return len(asked) == 1 && strings.HasSuffix(asked[0], "Deploy build 42?\n\nExpired: no decision was made in time.")
	}); err != nil {
		var texts []string
		for _, msg := range w.f.slack.Snapshot().Messages {
			texts = append(texts, msg.Text)
		}
		t.Fatalf("the question was not edited to say it expired: %v; the messages: %q", err, texts)
	}
	w.waitStatus("the expiry counted", func(s *reconcile.Status) bool {
		d, ok := daemonStatus(s, "slack")
		return ok && d.Relay != nil && d.Relay.Asks != nil && d.Relay.Asks.Expired == 1 && d.Relay.Asks.Open == 0
	})
	if got := wideCell(t, runBinary(t, nil, "status", "slack", "-o", "wide", "--agent-dir", w.agentDir), "ASKS"); got != "0/0/1/0" {
		t.Errorf("status -o wide: ASKS %q, want 0/0/1/0", got)
	}
}
