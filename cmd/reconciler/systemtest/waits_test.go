package systemtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A Discord daemon pointed at a closed port: --once says what it waits
// for while it waits (stderr), and its failure says why from the record,
// naming the host dialled, not discord.com, and what keeps running.
func TestOnceFailureNamesTheDialledHost(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	doc := fmt.Sprintf("apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata:\n  name: discord\nspec:\n  provider: discord\n  generation: 1\n  readyTimeout: 5s\n  discord:\n    botToken: {fromEnv: E2E_DISCORD_TOKEN}\n    applicationId: app-1\n    guildId: %q\n    parentChannelId: chan-3\n    apiURL: http://%s\n", e.f.discord.GuildID(), addr)
	if err := os.WriteFile(e.specPath, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.once()
	if r.code != 1 {
		t.Fatalf("--once against a closed port: exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	rec := waitRecord(t, e.paths("discord"), "a transport error", func(rec ownership.Record) bool {
		return rec.State != nil && rec.State.TransportError != ""
	})
	if te := rec.State.TransportError; !strings.Contains(te, "http://"+addr+"/") || strings.Contains(te, "discord.com") {
		t.Errorf("transportError %q: want it to name http://%s/, not discord.com", te, addr)
	}
	pid := strconv.Itoa(rec.State.PID)
	for _, want := range []string{"not converged: discord: NotReady: not healthy within readyTimeout 5s; its transport: ", "http://" + addr + "/",
		"discord daemon (pid " + pid + ") keeps running and retrying its connection"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--once stdout does not say %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "discord.com") {
		t.Errorf("--once names discord.com, which it never dialled:\n%s", r.stdout)
	}
	waits := waitLines(r.stderr)
	if len(waits) == 0 || !strings.HasPrefix(waits[0], "waiting for discord (pid "+pid+") to become healthy (") {
		t.Errorf("--once did not say what it waits for; its wait lines: %q", waits)
	}
	if !strings.Contains(strings.Join(waits, "\n"), "; its transport: checking the bot token: Get \"http://"+addr+"/") {
		t.Errorf("no wait line says what the record says meanwhile: %q", waits)
	}
}

// waitLines are the lines a command wrote about its waits.
func waitLines(stderr string) []string {
	var out []string
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "waiting for ") {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}

// stop says what it waits for: the exit, after SIGTERM or as asked, with
// its time left.
func TestStopSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	e.mustConverge()
	pid := e.state("slack").PID
	r := runBinary(t, e.env, "stop", "slack", "--graceful-timeout", "20s", "--agent-dir", e.agentDir)
	if r.code != 0 {
		t.Fatalf("stop: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// A daemon quick to see its control request has released before the
	// SIGTERM: then the stop waits for the exit it asked for.
	waits := waitLines(r.stderr)
	prefix := fmt.Sprintf("waiting for slack (pid %d) to exit ", pid)
	if len(waits) != 1 || !strings.HasPrefix(waits[0], prefix) || !strings.HasSuffix(waits[0], " (20s left)") ||
		!strings.Contains(waits[0], "after SIGTERM") && !strings.Contains(waits[0], "as its control request asks") {
		t.Errorf("stop's wait lines: %q", waits)
	}
}

// A command waiting for the pass lock names the holder; past
// --lock-timeout its error (exit 3) names it too.
func TestLockWaitNamesTheHolder(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	release, err := fsstore.New(e.agentDir, fsstore.Options{}).LockPasses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := runBinary(t, e.env, "stop", "slack", "--lock-timeout", "1s", "--agent-dir", e.agentDir)
	if r.code != 3 {
		t.Fatalf("stop while the lock is held: exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	holder := fmt.Sprintf("pid %d (%s ", os.Getpid(), os.Args[0])
	if waits := waitLines(r.stderr); len(waits) != 1 || !strings.Contains(waits[0], "the pass lock is held by "+holder) {
		t.Errorf("wait lines %q: want one naming %q", waits, holder)
	}
	if !strings.Contains(r.stderr, "error: ") || !strings.Contains(r.stderr[strings.Index(r.stderr, "error: "):], "held by "+holder) {
		t.Errorf("the lock timeout's error does not name the holder:\n%s", r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(e.agentDir, "sdk", "reconciler", "holds.json")); err == nil {
		t.Error("stop without the lock wrote holds.json")
	}
}

// Through the loop, a command that waits prints the loop's own waits as
// it would print its own: what the loop waits for, on which process, with
// the time left; not only that it waits for the loop.
func TestStopThroughTheLoopSaysWhatTheLoopWaitsFor(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1}, object{name: "discord", provider: "discord", generation: 1})
	e.startLoop()
	e.waitStatus("both converged under the loop", func(s *reconcile.Status) bool { return summaryConverged(s, 2) })
	pid := e.state("slack").PID
	r := runBinary(t, e.env, "stop", "slack", "--graceful-timeout", "20s", "--agent-dir", e.agentDir)
	if r.code != 0 || strings.Contains(r.stderr, "acting directly") {
		t.Fatalf("stop through the loop: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	waits := waitLines(r.stderr)
	prefix := fmt.Sprintf("waiting for slack (pid %d) to exit ", pid)
	if len(waits) < 2 || waits[0] != "waiting for the reconcile loop to stop slack" || !strings.HasPrefix(waits[1], prefix) || !strings.HasSuffix(waits[1], " (20s left)") {
		t.Errorf("stop's wait lines through the loop: %q; want the loop's, then %q... (20s left)", waits, prefix)
	}
	r = runBinary(t, e.env, "start", "slack", "--agent-dir", e.agentDir)
	if r.code != 0 {
		t.Fatalf("start through the loop: exit %d\nstderr: %s", r.code, r.stderr)
	}
	waits = waitLines(r.stderr)
	if len(waits) < 2 || !strings.HasPrefix(waits[1], "waiting for slack (pid ") || !strings.Contains(waits[1], ") to become healthy (") {
		t.Errorf("start's wait lines through the loop: %q; want the loop's, then slack's ready wait", waits)
	}
	for _, w := range waits {
		if strings.Contains(w, "discord") { // the loop's waits for other names are not this command's
			t.Errorf("a wait of another name was printed: %q", w)
		}
	}
}

// Through the loop, a command whose operation waits for the pass lock
// another process holds names that holder, as acting alone it would.
func TestLockWaitThroughTheLoopNamesTheHolder(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	e.startLoop()
	e.waitStatus("converged under the loop", func(s *reconcile.Status) bool { return summaryConverged(s, 1) })
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	release, err := fsstore.New(e.agentDir, fsstore.Options{}).LockPasses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := runBinary(t, e.env, "stop", "slack", "--lock-timeout", "2s", "--agent-dir", e.agentDir)
	if r.code != 3 || strings.Contains(r.stderr, "acting directly") {
		t.Fatalf("stop through the loop while the lock is held: exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	holder := fmt.Sprintf("the pass lock is held by pid %d (%s ", os.Getpid(), os.Args[0])
	if waits := waitLines(r.stderr); len(waits) != 2 || !strings.HasPrefix(waits[1], "waiting for another reconciler's pass to end: "+holder) {
		t.Errorf("wait lines %q: want the loop's, then one naming %q", waits, holder)
	}
}
