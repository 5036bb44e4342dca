package chat_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/slack"
	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/relay"
)

// crashWait bounds every wait of the crash tests.
const crashWait = 30 * time.Second

// relayChild is one running child relay.
type relayChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{}
	log    string // its stderr, a file
}

func startChild(t *testing.T, dir string, env ...string) *relayChild {
	t.Helper()
	logDir := dir
	if keep := os.Getenv("RELAY_KEEP_LOGS"); keep != "" {
		logDir = keep // kept after the test, to read what the children did
	}
	logPath := filepath.Join(logDir, fmt.Sprintf("child-%d.log", time.Now().UnixNano()))
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRelayCrashChild$", "-test.timeout=0")
	cmd.Env = append(os.Environ(), append([]string{"RELAY_CHILD=1", "RELAY_DIR=" + dir}, env...)...)
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &relayChild{cmd: cmd, stdin: stdin, lines: make(chan string, 64), exited: make(chan struct{}), log: logPath}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		_ = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { c.kill(t) })
	return c
}

// waitLine waits for a line of the child's starting with prefix.
func (c *relayChild) waitLine(ctx context.Context, prefix string) (string, error) {
	for {
		select {
		case l := <-c.lines:
			if strings.HasPrefix(l, prefix) {
				return l, nil
			}
			if strings.HasPrefix(l, "CHILD-ERROR") {
				return "", fmt.Errorf("child: %s", l)
			}
		case <-c.exited:
			return "", fmt.Errorf("the child exited before printing %q (%s)", prefix, c.tail())
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for the child's %q: %w (%s)", prefix, ctx.Err(), c.tail())
		}
	}
}

// kill SIGKILLs the child and waits until it is gone.
func (c *relayChild) kill(t *testing.T) {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(crashWait):
		t.Errorf("child %d still there %s after SIGKILL", c.cmd.Process.Pid, crashWait)
	}
}

func (c *relayChild) tail() string {
	data, _ := os.ReadFile(c.log)
	if len(data) > 3000 {
		data = data[len(data)-3000:]
	}
	return "stderr tail:\n" + string(data)
}

// crashRig is one provider's fake as the crash tests drive and read it.
type crashRig interface {
	env() []string
	render() relay.RenderOptions
	// holdNext holds the next create request at the fake; held returns
	// once one is held; afterKill runs once its client is dead and lets
	// it go on (Discord stores nothing for a client gone; Slack stores it
	// anyway, as a service that got the request does).
	holdNext() (held func(context.Context) error, afterKill func(context.Context) error)
	acceptThenFail(cut bool)
	// posts counts the create requests received; waitPosts waits for more than n.
	waitPosts(ctx context.Context, n int) (int, error)
	observe() observed
}

// observed is what the fake holds, in the shape every session has: a
// root in the channel, a thread under it, parts in the thread.
type observed struct {
	roots    []string            // top-level contents, in channel order
	threads  map[string]int      // root content -> threads made from it
	replies  map[string][]string // root content -> thread contents, in order
	closed   map[string]bool     // root content -> thread archived and locked (Discord)
	messages int
}

type discordRig struct{ f *fakediscord.Server }

// newDiscordRig starts the fake; nonceWindow, when set, is its window too,
// so a re-post past it doubles, as on Discord.
func newDiscordRig(t *testing.T, nonceWindow time.Duration) *discordRig {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{discordToken}, Channels: []string{discordParent}, NonceWindow: nonceWindow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return &discordRig{f: f}
}

func (r *discordRig) env() []string {
	return []string{"RELAY_PROVIDER=discord", "RELAY_URL=" + r.f.URL()}
}

func (r *discordRig) render() relay.RenderOptions {
	return relay.RenderOptions{Verbose: true, Limit: discord.PartLimit, Markup: relay.Markdown}
}

func (r *discordRig) holdNext() (func(context.Context) error, func(context.Context) error) {
	r.f.HoldPosts()
	held := func(ctx context.Context) error {
		_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Held > 0 })
		return err
	}
	after := func(ctx context.Context) error {
		// The fake notices the client's connection closed, and drops it.
		_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Held == 0 })
		r.f.Release()
		return err
	}
	return held, after
}

func (r *discordRig) acceptThenFail(cut bool) {
	mode := fakediscord.FailBadGateway
	if cut {
		mode = fakediscord.FailCut
	}
	r.f.AcceptThenFail(1, mode)
}

func (r *discordRig) waitPosts(ctx context.Context, n int) (int, error) {
	s, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Posts > n })
	return s.Posts, err
}

func (r *discordRig) observe() observed {
	s := r.f.Snapshot()
	o := observed{threads: map[string]int{}, replies: map[string][]string{}, closed: map[string]bool{}, messages: len(s.Messages)}
	byID := map[string]string{}
	for _, m := range s.In(discordParent) {
		o.roots = append(o.roots, m.Content)
		byID[m.ID] = m.Content
	}
	for _, th := range s.Threads {
		root := byID[th.StarterID]
		o.threads[root]++
		o.closed[root] = th.Archived && th.Locked
		for _, m := range s.In(th.ID) {
			o.replies[root] = append(o.replies[root], m.Content)
		}
	}
	return o
}

type slackRig struct{ f *fakeslack.Server }

func newSlackRig(t *testing.T) *slackRig {
	f, err := fakeslack.Start(fakeslack.Options{BotTokens: []string{slackToken}, Channels: []string{slackChannel}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return &slackRig{f: f}
}

func (r *slackRig) env() []string { return []string{"RELAY_PROVIDER=slack", "RELAY_URL=" + r.f.URL()} }

func (r *slackRig) render() relay.RenderOptions {
	return relay.RenderOptions{Verbose: true, Limit: slack.PartLimit, Markup: relay.Mrkdwn}
}

func (r *slackRig) holdNext() (func(context.Context) error, func(context.Context) error) {
	h := r.f.HoldNextPost()
	held := func(ctx context.Context) error {
		select {
		case <-h.Arrived():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	after := func(ctx context.Context) error {
		n := len(r.f.Snapshot().Messages)
		h.Release()
		// Stored although its client is gone: the restarted relay must
		// find it, not post it again.
		_, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return len(s.Messages) > n })
		return err
	}
	return held, after
}

func (r *slackRig) acceptThenFail(cut bool) {
	mode := fakeslack.Fail502
	if cut {
		mode = fakeslack.FailCut
	}
	r.f.AcceptThenFail(1, mode)
}

func (r *slackRig) waitPosts(ctx context.Context, n int) (int, error) {
	s, err := r.f.WaitFor(ctx, func(s fakeslack.Snapshot) bool { return s.PostMessages > n })
	return s.PostMessages, err
}

func (r *slackRig) observe() observed {
	s := r.f.Snapshot()
	o := observed{threads: map[string]int{}, replies: map[string][]string{}, messages: len(s.Messages)}
	for _, m := range s.Channel(slackChannel) {
		o.roots = append(o.roots, m.Text)
		// A Slack thread is its root's replies: there is nothing to make twice.
		o.threads[m.Text]++
		for _, rep := range s.Thread(slackChannel, m.TS) {
			o.replies[m.Text] = append(o.replies[m.Text], rep.Text)
		}
	}
	return o
}

// expected is what the fake must hold for msgs, rendered as the relay
// renders them: per session its root and its thread's texts, in order.
// Texts hold none of Slack's escaped characters, so they compare as sent.
type expectedSession struct {
	root    string
	replies []string
	closed  bool
}

func expect(msgs []bus.Message, o relay.RenderOptions) (map[string]*expectedSession, []string) {
	sessions := map[string]*expectedSession{}
	var order []string
	sorted := slices.Clone(msgs)
	slices.SortFunc(sorted, func(a, b bus.Message) int { return strings.Compare(a.ID, b.ID) })
	for _, m := range sorted {
		rd := relay.Render(m, o)
		s := sessions[m.Session]
		if s == nil {
			s = &expectedSession{root: rd.Root}
			sessions[m.Session] = s
			order = append(order, m.Session)
		}
		s.replies = append(s.replies, rd.Parts...)
		if rd.Close {
			s.replies = append(s.replies, rd.CloseLine)
			s.closed = true
		}
	}
	return sessions, order
}

// checkDelivered says how the fake and the bus differ from every message
// of msgs posted exactly once, in order, and none left in the outbox.
func checkDelivered(r crashRig, d bus.Dirs, msgs []bus.Message, discordThreads bool) []string {
	var bad []string
	want, order := expect(msgs, r.render())
	got := r.observe()
	total := 0
	for _, sid := range order {
		w := want[sid]
		total += 1 + len(w.replies)
		if n := count(got.roots, w.root); n != 1 {
			bad = append(bad, fmt.Sprintf("session %s: root %q at the fake %d times, want once", sid, w.root, n))
		}
		if n := got.threads[w.root]; n != 1 {
			bad = append(bad, fmt.Sprintf("session %s: %d threads, want 1", sid, n))
		}
		if g := got.replies[w.root]; !slices.Equal(g, w.replies) {
			bad = append(bad, fmt.Sprintf("session %s: thread holds %d texts, want %d; first difference %s",
				sid, len(g), len(w.replies), firstDiff(g, w.replies)))
		}
		if discordThreads && w.closed && !got.closed[w.root] {
			bad = append(bad, fmt.Sprintf("session %s: closed, but its thread is not archived and locked", sid))
		}
	}
	if got.messages != total {
		bad = append(bad, fmt.Sprintf("the fake holds %d messages, want %d", got.messages, total))
	}
	if names, err := bus.ListOutbox(d.Outbox); err != nil || len(names) != 0 {
		bad = append(bad, fmt.Sprintf("outbox holds %v (%v), want nothing", names, err))
	}
	if n, err := bus.CountFailed(d); err != nil || n != 0 {
		bad = append(bad, fmt.Sprintf("failed/ holds %d (%v), want nothing", n, err))
	}
	if ents, err := os.ReadDir(d.Sent); err != nil || len(ents) != len(msgs) {
		bad = append(bad, fmt.Sprintf("sent/ holds %d entries (%v), want %d", len(ents), err, len(msgs)))
	}
	return bad
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

func firstDiff(got, want []string) string {
	short := func(s string) string {
		if len(s) > 60 {
			return s[:60] + "…"
		}
		return s
	}
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("at %d: missing %q", i, short(want[i]))
		case i >= len(want):
			return fmt.Sprintf("at %d: extra %q", i, short(got[i]))
		case got[i] != want[i]:
			return fmt.Sprintf("at %d: %q, want %q", i, short(got[i]), short(want[i]))
		}
	}
	return "none"
}

// newBus makes the bus of the crash daemon's name under a fresh agent dir.
func newBus(t *testing.T) (string, bus.Dirs) {
	dir := t.TempDir()
	d, err := bus.Paths(dir, crashName)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return dir, d
}

func publish(t *testing.T, d bus.Dirs, msgs []bus.Message) {
	t.Helper()
	for _, m := range msgs {
		if _, err := bus.Write(d.Outbox, m); err != nil {
			t.Fatal(err)
		}
	}
}

// outboxWatch tells when the outbox is empty, on its change events.
type outboxWatch struct {
	d       bus.Dirs
	changes <-chan struct{}
}

func watchOutbox(t *testing.T, d bus.Dirs) *outboxWatch {
	w, err := dirwatch.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	ch, cancel, err := w.Subscribe(d.Outbox, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return &outboxWatch{d: d, changes: ch}
}

func (w *outboxWatch) empty() (bool, error) {
	names, err := bus.ListOutbox(w.d.Outbox)
	return len(names) == 0, err
}

// waitEmpty waits until the outbox is empty; an error when c exits first
// or ctx ends.
func (w *outboxWatch) waitEmpty(ctx context.Context, c *relayChild) error {
	for {
		ok, err := w.empty()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-w.changes:
		case <-c.exited:
			return fmt.Errorf("the child exited with the outbox not empty (%s)", c.tail())
		case <-ctx.Done():
			names, _ := bus.ListOutbox(w.d.Outbox)
			return fmt.Errorf("outbox still holds %d messages: %w (%s)", len(names), ctx.Err(), c.tail())
		}
	}
}
