package systemtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	discordToken = "discord-e2e-TOKEN-5c1f"
	slackBot     = "xoxb-e2e-TOKEN-77aa"
	slackApp     = "xapp-e2e-TOKEN-91bd"
	// slackApp2 is a second app's token, for a test that runs two Slack
	// daemons at once: two of one app would be TokenInUse.
	slackApp2 = "xapp-e2e-TOKEN-2c4e"
	// telegramToken has the shape the Bot API issues, which the spec
	// checks.
	telegramToken = "7000000003:AAE2eeTokenE2eeTokenE2eeTokenE2ee00"
	// testHeartbeat keeps "within one heartbeat" short in tests.
	testHeartbeat = 300 * time.Millisecond
	e2eDeadline   = 20 * time.Second
)

// fakes are the two local services every daemon test talks to.
type fakes struct {
	discord  *fakediscord.Server
	slack    *fakeslack.Server
	telegram *faketelegram.Server
}

func startFakes(t testing.TB) *fakes { return startFakesWith(t, fakeslack.Options{}) }

// startFakesWith starts the fakes, the Slack one with slackOpts' hooks
// (OnAck, AckTimeout) beside the tokens and channel every test uses; both
// listen on slackOpts.Host (127.0.0.1 when empty).
func startFakesWith(t testing.TB, slackOpts fakeslack.Options) *fakes {
	t.Helper()
	d, err := fakediscord.Start(fakediscord.Options{Tokens: []string{discordToken}, Channels: []string{"chan-3"}, HeartbeatInterval: time.Second, Host: slackOpts.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	slackOpts.BotTokens, slackOpts.AppTokens, slackOpts.Channels, slackOpts.PingInterval = []string{slackBot}, []string{slackApp, slackApp2}, []string{"C1"}, time.Second
	s, err := fakeslack.Start(slackOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tg, err := faketelegram.Start(faketelegram.Options{Token: telegramToken, Host: slackOpts.Host, Limit: faketelegram.ScaledLimit(spec.MaxPostsPerMinute)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tg.Close)
	return &fakes{discord: d, slack: s, telegram: tg}
}

func (f *fakes) config(provider spec.Provider, name string, generation spec.Generation) *spec.Config {
	c := &spec.Config{Name: name, Provider: provider, Generation: generation, State: spec.StateRunning, Verbosity: spec.VerbosityLean,
		ReadyTimeout: spec.DefaultReadyTimeout, GracefulTimeout: spec.DefaultGracefulTimeout, KillTimeout: spec.DefaultKillTimeout}
	if provider == spec.ProviderDiscord {
		c.Discord = &spec.DiscordConfig{BotToken: spec.NewSecret(discordToken), ApplicationID: "app-1", GuildID: f.discord.GuildID(), ParentChannelID: "chan-3", APIURL: f.discord.URL()}
	} else {
		c.Slack = &spec.SlackConfig{BotToken: spec.NewSecret(slackBot), AppToken: spec.NewSecret(slackApp), WorkspaceID: f.slack.TeamID(), ChannelID: "C1", APIURL: f.slack.URL()}
	}
	return c
}

// liveSessions is what the fake sees of one bot's connections.
func (f *fakes) liveSessions(provider spec.Provider) (live, maxLive int) {
	if provider == spec.ProviderDiscord {
		st := f.discord.Snapshot().Tokens[discordToken]
		return st.Live, st.MaxLive
	}
	st := f.slack.Snapshot().Apps[slackApp]
	return st.Live, st.MaxLive
}

// daemonProc is a `reconciler daemon` started as a real process.
type daemonProc struct {
	cmd    *exec.Cmd
	done   chan struct{}
	code   int
	output bytes.Buffer
}

func startDaemon(t testing.TB, agentDir string, cfg *spec.Config, ownerID string) *daemonProc {
	t.Helper()
	stdin, err := daemonproto.ConfigStdin(cfg, daemonproto.Secrets{})
	if err != nil {
		t.Fatal(err)
	}
	p := &daemonProc{done: make(chan struct{})}
	claim := daemonproto.Claim{AgentDir: agentDir, Name: cfg.Name, OwnerID: ownerID}
	p.cmd = exec.Command(binary, daemonproto.Args(claim, cfg.Generation, daemonproto.HeartbeatArgs(testHeartbeat)...)...)
	p.cmd.Stdin = stdin
	p.cmd.Stdout, p.cmd.Stderr = &p.output, &p.output
	p.cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
		case err != nil:
			p.code = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *daemonProc) waitExit(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(within):
		t.Fatalf("daemon still running after %v; output:\n%s", within, p.output.String())
		return 0
	}
}

// waitRecord waits, woken by file events in the daemon dir, until cond holds
// for state.json.
func waitRecord(t testing.TB, paths ownership.Paths, what string, cond func(ownership.Record) bool) ownership.Record {
	t.Helper()
	if err := os.MkdirAll(paths.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var rec ownership.Record
	waitDirEvents(t, ctx, paths.Dir, func() bool {
		rec = fsstore.ReadState(paths)
		return cond(rec)
	}, "state.json "+what)
	return rec
}

// waitDirEvents evaluates check now and after every event in dir until it
// holds, failing the test at ctx's deadline.
func waitDirEvents(t testing.TB, ctx context.Context, dir string, check func() bool, what string) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	for !check() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("%s: not reached before the deadline", what)
		}
	}
}

func healthy(rec ownership.Record) bool {
	return rec.State != nil && rec.State.TransportHealthy && rec.State.StoppedAt == nil &&
		time.Since(time.UnixMilli(rec.State.HeartbeatAt)) <= ownership.HeartbeatTTL
}

func unhealthy(rec ownership.Record) bool {
	return rec.State != nil && !rec.State.TransportHealthy && rec.State.StoppedAt == nil
}

func stopped(rec ownership.Record) bool { return rec.State != nil && rec.State.StoppedAt != nil }

var providers = []spec.Provider{spec.ProviderDiscord, spec.ProviderSlack}

func TestDaemonBecomesHealthyAndStopsOnSIGTERM(t *testing.T) {
	f := startFakes(t)
	for _, provider := range providers {
		t.Run(string(provider), func(t *testing.T) {
			dir := t.TempDir()
			cfg := f.config(provider, "bot", 4)
			paths := ownership.PathsFor(dir, cfg.Name)
			start := time.Now()
			p := startDaemon(t, dir, cfg, "owner-1")
			rec := waitRecord(t, paths, "healthy", healthy)
			t.Logf("%s healthy %v after start", provider, time.Since(start))
			if s := rec.State; s.OwnerID != "owner-1" || s.Identity != cfg.Identity() || s.Generation != spec.Generation(4).Opt() || s.Kind != string(provider) || s.PID != p.cmd.Process.Pid {
				t.Errorf("record %+v does not describe this daemon", s)
			}
			assertNoToken(t, dir, p.cmd.Process.Pid)

			// Close the transport first, then release: the fake must already see
			// no connection when stoppedAt appears.
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitRecord(t, paths, "stopped", stopped)
			if live, maxLive := f.liveSessions(provider); live != 0 || maxLive != 1 {
				t.Errorf("at stoppedAt the fake sees %d live sessions (max %d), want 0 (max 1)", live, maxLive)
			}
			if code := p.waitExit(t, e2eDeadline); code != 0 {
				t.Errorf("exit %d, want 0; output:\n%s", code, p.output.String())
			}
			if _, err := os.Lstat(paths.Lock); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("owner.lock still there after release: %v", err)
			}
		})
	}
}

func TestDaemonReportsTransportDrop(t *testing.T) {
	f := startFakes(t)
	for _, provider := range providers {
		t.Run(string(provider), func(t *testing.T) {
			dir := t.TempDir()
			cfg := f.config(provider, "bot", 1)
			paths := ownership.PathsFor(dir, cfg.Name)
			startDaemon(t, dir, cfg, "owner-drop")
			waitRecord(t, paths, "healthy", healthy)
			// An outage, not a bare drop: the daemon coalesces health reports
			// to the newest, so a reconnect faster than one state.json write
			// would (rightly) never show as unhealthy.
			outage := f.slack.SetUnavailable
			if provider == spec.ProviderDiscord {
				outage = f.discord.SetUnavailable
			}
			outage(true)
			rec := waitRecord(t, paths, "unhealthy", unhealthy)
			if rec.State.TransportError == "" {
				t.Error("unhealthy record says nothing in transportError")
			}
			outage(false)
			waitRecord(t, paths, "healthy again", healthy)
		})
	}
}

func TestDaemonStopsOnMatchingControlRequestOnly(t *testing.T) {
	f := startFakes(t)
	dir := t.TempDir()
	cfg := f.config(spec.ProviderDiscord, "bot", 1)
	paths := ownership.PathsFor(dir, cfg.Name)
	p := startDaemon(t, dir, cfg, "owner-ctl")
	st := waitRecord(t, paths, "healthy", healthy).State

	// Addressed to someone else: ignored and left in place.
	other := ownership.ControlRequest{Version: 1, RequestID: "req-other", Action: "stop", OwnerID: "someone-else", PID: st.PID, Incarnation: st.Incarnation, CreatedAt: time.Now().UnixMilli()}
	if err := fsstore.WriteControl(paths, other); err != nil {
		t.Fatal(err)
	}
	before := st.HeartbeatAt
	waitRecord(t, paths, "renewed after the foreign request", func(r ownership.Record) bool {
		return r.State != nil && r.State.HeartbeatAt > before+testHeartbeat.Milliseconds()
	})
	if req, err := fsstore.ReadControl(paths); err != nil || req == nil || req.RequestID != "req-other" {
		t.Fatalf("foreign control request not left in place: %+v, %v", req, err)
	}

	mine := other
	mine.RequestID, mine.OwnerID = "req-mine", st.OwnerID
	if err := fsstore.WriteControl(paths, mine); err != nil {
		t.Fatal(err)
	}
	waitRecord(t, paths, "stopped", stopped)
	if live, _ := f.liveSessions(spec.ProviderDiscord); live != 0 {
		t.Errorf("fake sees %d live sessions at stoppedAt", live)
	}
	if code := p.waitExit(t, e2eDeadline); code != 0 {
		t.Errorf("exit %d, want 0; output:\n%s", code, p.output.String())
	}
}

func TestSecondDaemonExits3WithoutConnecting(t *testing.T) {
	f := startFakes(t)
	dir := t.TempDir()
	cfg := f.config(spec.ProviderDiscord, "bot", 1)
	paths := ownership.PathsFor(dir, cfg.Name)
	startDaemon(t, dir, cfg, "owner-first")
	waitRecord(t, paths, "healthy", healthy)
	second := startDaemon(t, dir, cfg, "owner-second")
	if code := second.waitExit(t, e2eDeadline); code != 3 {
		t.Fatalf("second daemon exit %d, want 3; output:\n%s", code, second.output.String())
	}
	if !strings.Contains(second.output.String(), "owned by pid") && !strings.Contains(second.output.String(), "held") {
		t.Errorf("exit 3 without saying who owns it:\n%s", second.output.String())
	}
	st := f.discord.Snapshot().Tokens[discordToken]
	if st.Identifies != 1 || st.MaxLive != 1 {
		t.Errorf("fake saw %d IDENTIFYs, max %d live; want 1 and 1", st.Identifies, st.MaxLive)
	}
}

// With every file of the first daemon removed (rm -rf sdk) while it runs
// and before it can notice (stopped), a second daemon still exits 3
// without connecting: the kernel-held name lock names the first.
func TestSecondDaemonExits3WhenStateRemoved(t *testing.T) {
	f := startFakes(t)
	dir := t.TempDir()
	cfg := f.config(spec.ProviderDiscord, "bot", 1)
	paths := ownership.PathsFor(dir, cfg.Name)
	first := startDaemon(t, dir, cfg, "owner-first")
	waitRecord(t, paths, "healthy", healthy)
	if err := first.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "sdk")); err != nil {
		t.Fatal(err)
	}
	second := startDaemon(t, dir, cfg, "owner-second")
	if code := second.waitExit(t, e2eDeadline); code != 3 {
		t.Fatalf("second daemon exit %d, want 3; output:\n%s", code, second.output.String())
	}
	if want := fmt.Sprintf("owned by pid %d", first.cmd.Process.Pid); !strings.Contains(second.output.String(), want) {
		t.Errorf("exit 3 without naming the holder (%q):\n%s", want, second.output.String())
	}
	st := f.discord.Snapshot().Tokens[discordToken]
	if st.Identifies != 1 || st.MaxLive != 1 {
		t.Errorf("fake saw %d IDENTIFYs, max %d live; want 1 and 1", st.Identifies, st.MaxLive)
	}
	_ = first.cmd.Process.Signal(syscall.SIGCONT)
}

func TestDaemonExits4WhenOwnershipLost(t *testing.T) {
	f := startFakes(t)
	for _, provider := range providers {
		t.Run(string(provider), func(t *testing.T) {
			dir := t.TempDir()
			cfg := f.config(provider, "bot", 1)
			paths := ownership.PathsFor(dir, cfg.Name)
			p := startDaemon(t, dir, cfg, "owner-lost")
			rec := waitRecord(t, paths, "healthy", healthy)
			// Steal just after a heartbeat: a write landing between a renew's
			// check and its rename would be overwritten, which no test can
			// tell from a daemon that ignored the usurper.
			rec = waitRecord(t, paths, "the next heartbeat", func(r ownership.Record) bool {
				return r.State != nil && r.State.HeartbeatAt > rec.State.HeartbeatAt
			})
			stolen := *rec.State
			stolen.OwnerID = "usurper"
			if err := atomicfile.Write(paths.State, stolen.Marshal()); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if code := p.waitExit(t, e2eDeadline); code != 4 {
				t.Fatalf("exit %d, want 4; output:\n%s", code, p.output.String())
			}
			// One heartbeat to notice, plus closing the transport (discordgo's
			// Close sleeps a second).
			if took := time.Since(start); took > testHeartbeat+3*time.Second {
				t.Errorf("took %v to notice and stop", took)
			}
			if live, _ := f.liveSessions(provider); live != 0 {
				t.Errorf("fake still sees %d live sessions", live)
			}
			if got := fsstore.ReadState(paths); got.State == nil || got.State.OwnerID != "usurper" || got.State.StoppedAt != nil {
				t.Errorf("the daemon wrote over the new owner's record: %s", got.Raw)
			}
		})
	}
}

func TestDaemonRejectedTokenIsTerminal(t *testing.T) {
	f := startFakes(t)
	f.discord.SetTokenRejected(discordToken, true)
	f.slack.SetTokenRejected(slackApp, true)
	for _, provider := range providers {
		t.Run(string(provider), func(t *testing.T) {
			dir := t.TempDir()
			cfg := f.config(provider, "bot", 1)
			paths := ownership.PathsFor(dir, cfg.Name)
			p := startDaemon(t, dir, cfg, "owner-rejected")
			if code := p.waitExit(t, e2eDeadline); code != 78 {
				t.Fatalf("exit %d, want 78; output:\n%s", code, p.output.String())
			}
			rec := fsstore.ReadState(paths)
			if rec.State == nil || rec.State.Terminated == nil || rec.State.Terminated.Reason != daemonproto.ReasonInvalidCredentials || rec.State.StoppedAt == nil {
				t.Fatalf("record after a rejected token: %s", rec.Raw)
			}
			if provider == spec.ProviderDiscord {
				if st := f.discord.Snapshot().Tokens[discordToken]; st.Identifies > 1 {
					t.Errorf("%d IDENTIFYs with a rejected token: a retry storm", st.Identifies)
				}
			} else if st := f.slack.Snapshot().Apps[slackApp]; st.Connections > 1 {
				t.Errorf("%d socket connections with a rejected token", st.Connections)
			}
		})
	}
}

// assertNoToken checks the places a token could leak from a running daemon:
// its argv, its environment, its log and its record.
func assertNoToken(t testing.TB, agentDir string, pid int) {
	t.Helper()
	var haystack bytes.Buffer
	for _, f := range []string{fmt.Sprintf("/proc/%d/cmdline", pid), fmt.Sprintf("/proc/%d/environ", pid)} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		haystack.Write(data)
	}
	_ = filepath.Walk(agentDir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			haystack.Write(data)
		}
		return nil
	})
	for _, tok := range []string{discordToken, slackBot, slackApp} {
		if bytes.Contains(haystack.Bytes(), []byte(tok)) {
			t.Errorf("token %q found in the daemon's argv, environment or files", tok[:8]+"...")
		}
	}
}

// A malformed control.json is ignored, left in place, and logged once: the
// daemon's own log lives in the same dir, so logging on every event of the
// dir would feed itself.
func TestDaemonIgnoresMalformedControlQuietly(t *testing.T) {
	f := startFakes(t)
	dir := t.TempDir()
	cfg := f.config(spec.ProviderSlack, "bot", 1)
	paths := ownership.PathsFor(dir, cfg.Name)
	p := startDaemon(t, dir, cfg, "owner-quiet")
	st := waitRecord(t, paths, "healthy", healthy).State
	// Written whole (by rename): a reader must not catch it half-written,
	// which would be a second, different problem.
	tmp := paths.Control + ".test"
	if err := os.WriteFile(tmp, []byte(`{"version":1,"action":"stop"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, paths.Control); err != nil {
		t.Fatal(err)
	}
	// Three heartbeats later it still runs, and said so once.
	after := st.HeartbeatAt + 3*testHeartbeat.Milliseconds()
	waitRecord(t, paths, "three more heartbeats", func(r ownership.Record) bool {
		return r.State != nil && r.State.HeartbeatAt > after
	})
	select {
	case <-p.done:
		t.Fatalf("the daemon stopped on a malformed request: %s", p.output.String())
	default:
	}
	log, err := os.ReadFile(filepath.Join(paths.Dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "ignoring an unreadable control request"); n != 1 {
		t.Errorf("logged the malformed request %d times, want once (log is %d bytes)", n, len(log))
	}
}
