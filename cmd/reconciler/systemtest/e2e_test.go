package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// e2e is one end-to-end test's world: fakes, an agent dir, a spec file, and
// the environment the reconciler runs with (tokens included, as an operator's
// shell would have them).
type e2e struct {
	t        testing.TB
	f        *fakes
	agentDir string
	specPath string
	env      []string
	// production runs daemons at their real heartbeat, for figures.
	production bool
	// wrap runs the loop under another command (ip netns exec NS), so
	// it and its daemons run elsewhere than the test.
	wrap []string
}

func newE2E(t testing.TB) *e2e { return newE2EWith(t, startFakes(t)) }

// newE2EWith shares fakes between several worlds (benchmark iterations).
func newE2EWith(t testing.TB, f *fakes) *e2e {
	t.Helper()
	e := &e2e{t: t, f: f, agentDir: t.TempDir()}
	e.specPath = filepath.Join(e.agentDir, "daemons.yaml")
	e.env = append(os.Environ(), "GORACE=atexit_sleep_ms=0",
		"E2E_DISCORD_TOKEN="+discordToken, "E2E_SLACK_BOT="+slackBot, "E2E_SLACK_APP="+slackApp, "E2E_SLACK_APP2="+slackApp2, "E2E_TELEGRAM_TOKEN="+telegramToken)
	t.Cleanup(e.killAllDaemons)
	return e
}

// object describes one ChatDaemon for writeSpec.
type object struct {
	name, provider, state string
	generation            int64
	tokenEnv              string // discord: the bot token's variable (default E2E_DISCORD_TOKEN); slack: the app token's (E2E_SLACK_APP)
	graceful              string // gracefulTimeout (default 10s)
	extra                 string // more spec lines, indented two spaces
	providerExtra         string // more lines of the provider block, indented four spaces
}

func (e *e2e) writeSpec(objs ...object) {
	e.t.Helper()
	var docs []string
	for _, o := range objs {
		state := o.state
		if state == "" {
			state = "Running"
		}
		// Generous bounds: a loaded CI machine running race-built daemons
		// must not turn a graceful stop (discordgo alone sleeps 1 s in
		// Close) into a SIGKILL, or a slow connect into a failed pass.
		graceful := o.graceful
		if graceful == "" {
			graceful = "10s"
		}
		doc := fmt.Sprintf("apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata:\n  name: %s\nspec:\n  provider: %s\n  generation: %d\n  state: %s\n  readyTimeout: 30s\n  gracefulTimeout: %s\n  killTimeout: 5s\n%s",
			o.name, o.provider, o.generation, state, graceful, o.extra)
		if o.provider == "discord" {
			tok := o.tokenEnv
			if tok == "" {
				tok = "E2E_DISCORD_TOKEN"
			}
			doc += fmt.Sprintf("  discord:\n    botToken: {fromEnv: %s}\n    applicationId: app-1\n    guildId: %q\n    parentChannelId: chan-3\n    apiURL: %s\n", tok, e.f.discord.GuildID(), e.f.discord.URL())
		} else if o.provider == "telegram" {
			// Paced as fast as a spec may say, against a fake that
			// enforces the same budget (daemon_test.go): never a 429.
			doc += fmt.Sprintf("  telegram:\n    botToken: {fromEnv: E2E_TELEGRAM_TOKEN}\n    chatId: \"%d\"\n    apiURL: %s\n    postsPerMinute: %d\n", faketelegram.DefaultChatID, e.f.telegram.URL(), spec.MaxPostsPerMinute)
		} else {
			app := o.tokenEnv
			if app == "" {
				app = "E2E_SLACK_APP"
			}
			doc += fmt.Sprintf("  slack:\n    botToken: {fromEnv: E2E_SLACK_BOT}\n    appToken: {fromEnv: %s}\n    workspaceId: %s\n    channelId: C1\n    apiURL: %s\n", app, e.f.slack.TeamID(), e.f.slack.URL())
		}
		doc += o.providerExtra
		docs = append(docs, doc)
	}
	// Written by rename, as editors do, so a watching loop never reads half a file.
	tmp := e.specPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Rename(tmp, e.specPath); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) args(extra ...string) []string {
	args := []string{"--agent-dir", e.agentDir, "--log-format", "json"}
	if !e.production {
		args = append(args, "--daemon-heartbeat", testHeartbeat.String())
	}
	return append(args, extra...)
}

// once runs `reconciler --once` and returns its result.
func (e *e2e) once(extra ...string) result {
	e.t.Helper()
	cmd := exec.Command(binary, e.args(append([]string{"--once"}, extra...)...)...)
	cmd.Env = e.env
	return runCmd(e.t, cmd)
}

// loopProc is a running `reconciler` loop.
type loopProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs *logBuffer
}

// logBuffer collects a loop's output while it runs; tests read it meanwhile
// and wait for lines in it.
type logBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{wrote: make(chan struct{}, 1)} }

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer func() {
		select {
		case b.wrote <- struct{}{}:
		default:
		}
	}()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logLines decodes the JSON log lines the loop wrote so far.
func (b *logBuffer) logLines() []map[string]any {
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// waitLog waits, woken by each write, until cond holds for the lines so far.
func (b *logBuffer) waitLog(t testing.TB, what string, cond func([]map[string]any) bool) {
	t.Helper()
	deadline := time.After(e2eDeadline)
	for !cond(b.logLines()) {
		select {
		case <-b.wrote:
		case <-deadline:
			t.Fatalf("loop log: %s: not seen before the deadline", what)
		}
	}
}

func (e *e2e) startLoop(extra ...string) *loopProc {
	e.t.Helper()
	argv := append([]string{binary}, e.args(extra...)...)
	if len(e.wrap) > 0 {
		argv = append(append([]string{}, e.wrap...), argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = e.env
	p := &loopProc{cmd: cmd, done: make(chan struct{}), logs: newLogBuffer()}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	e.t.Cleanup(func() {
		p.stop()
		if e.t.Failed() {
			e.t.Logf("loop output:\n%s", p.logs.String())
			e.logDaemonLogs()
		}
	})
	return p
}

// stop ends the loop with SIGTERM (daemons keep running) and waits for it.
func (p *loopProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(e2eDeadline):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// logDaemonLogs shows each daemon's log and record, for a failure that happened
// inside a daemon rather than in the loop.
func (e *e2e) logDaemonLogs() {
	logs, _ := filepath.Glob(filepath.Join(e.agentDir, "sdk", "daemons", "*", "daemon.log"))
	states, _ := filepath.Glob(filepath.Join(e.agentDir, "sdk", "daemons", "*", ownership.StateFile))
	for _, l := range append(logs, states...) {
		b, err := os.ReadFile(l)
		e.t.Logf("%s (%v):\n%s", l, err, b)
	}
}

func (e *e2e) paths(name string) ownership.Paths { return ownership.PathsFor(e.agentDir, name) }

func (e *e2e) state(name string) *ownership.State {
	e.t.Helper()
	rec := fsstore.ReadState(e.paths(name))
	if rec.State == nil {
		e.t.Fatalf("%s: no valid state.json: %s", name, rec.Raw)
	}
	return rec.State
}

// waitStatus waits, woken by file events, until status.json satisfies cond.
func (e *e2e) waitStatus(what string, cond func(*reconcile.Status) bool) *reconcile.Status {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	dir := filepath.Dir(reconcile.StatusPath(e.agentDir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	var last *reconcile.Status
	waitDirEvents(e.t, ctx, dir, func() bool {
		st, err := reconcile.ReadStatus(e.agentDir)
		if err == nil && cond(st) {
			last = st
			return true
		}
		return false
	}, "status.json "+what)
	return last
}

// daemonStatus finds one name in a status.
func daemonStatus(st *reconcile.Status, name string) (reconcile.DaemonStatus, bool) {
	for _, d := range st.Daemons {
		if d.Name == name {
			return d, true
		}
	}
	return reconcile.DaemonStatus{}, false
}

// killDaemons ends every daemon a test left running, through a pidfd so a
// reused PID is never hit.
func (e *e2e) killDaemons() {
	entries, _ := os.ReadDir(filepath.Join(e.agentDir, "sdk", "daemons"))
	for _, ent := range entries {
		rec := fsstore.ReadState(e.paths(ent.Name()))
		if rec.State == nil {
			continue
		}
		proc, err := platform.OpenProcess(rec.State.PID, rec.State.Incarnation)
		if err != nil {
			continue
		}
		killAndWait(proc)
	}
}

// killAndWait SIGKILLs proc and waits, bounded, for it to be gone.
func killAndWait(proc *platform.Process) {
	defer proc.Close()
	_ = proc.Signal(syscall.SIGKILL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = proc.Wait(ctx)
}

// killAllDaemons is the test's last word: killDaemons, and then every
// process started as a daemon of this agent dir. A daemon still starting
// has no record yet (the loop may have spawned it just before it stopped),
// and a warm replacement has none: found by the command line, so none can
// write into the agent dir while the test's cleanup removes it.
func (e *e2e) killAllDaemons() {
	e.killDaemons()
	for _, proc := range e.openDaemons("") {
		killAndWait(proc)
	}
}

// openDaemons holds every live process started as name's daemon in this
// agent dir (any name's when name is ""), found by its command line. Held
// first, then judged: a command line read after the pidfd was opened,
// with the incarnation unchanged across the read, is this process's.
func (e *e2e) openDaemons(name string) []*platform.Process {
	want := []byte("\x00daemon\x00--agent-dir\x00" + e.agentDir + "\x00")
	wantName := []byte("\x00--name\x00" + name + "\x00")
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []*platform.Process
	for _, f := range files {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil {
			continue
		}
		inc, err := platform.Incarnation(pid)
		if err != nil {
			continue
		}
		proc, err := platform.OpenProcess(pid, inc)
		if err != nil {
			continue
		}
		argv, err := os.ReadFile(f)
		if now, ierr := platform.Incarnation(pid); err != nil || ierr != nil || now != inc ||
			!bytes.Contains(argv, want) || (name != "" && !bytes.Contains(argv, wantName)) {
			_ = proc.Close()
			continue
		}
		out = append(out, proc)
	}
	return out
}
