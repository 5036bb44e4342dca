package systemtest

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A --once run in a PID namespace of its own sees no daemon's process, yet
// the kernel still says their name locks are held (abstract sockets are
// per network namespace). It cannot examine those processes: it says so,
// exits 1, and leaves the running loop's status.json as the loop wrote it,
// instead of rewriting healthy daemons as Refused.
func TestOnceThatCannotSeeTheDaemonsLeavesTheLoopsStatus(t *testing.T) {
	t.Parallel()
	unshare := needUnshare(t)
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.startLoop()
	e.waitStatus("both converged under the loop", func(s *reconcile.Status) bool { return summaryConverged(s, 2) })
	pids := map[int]bool{e.state("discord").PID: true, e.state("slack").PID: true}
	held, err := os.ReadFile(reconcile.TrackedPath(e.agentDir))
	if err != nil {
		t.Fatalf("the loop saved no held.json: %v", err)
	}

	// With /proc of its own, and with the machine's /proc (PIDs it reads
	// there are not its namespace's): blind either way.
	for _, flags := range [][]string{{"--pid", "--fork", "--mount-proc"}, {"--pid", "--fork"}} {
		onceUnseen(t, e, unshare, flags)
	}
	// The loop may write it again meanwhile (its own view moves on), but
	// never with what a blind pass concluded.
	after, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range after.Daemons {
		if d.Phase != reconcile.PhaseRunning || !pids[d.PID] {
			t.Errorf("status.json after a pass that could not see the daemons: %s %s %s (pid %d): %s; want Running as the loop wrote it", d.Name, d.Phase, d.Reason, d.PID, d.Message)
		}
	}
	// The loop's held owners and event log are its own too: a blind pass
	// neither forgets the owners it cannot see nor logs them refused.
	if now, _ := os.ReadFile(reconcile.TrackedPath(e.agentDir)); !bytes.Equal(now, held) {
		t.Errorf("held.json rewritten by a pass that could not see the daemons:\nbefore: %s\nafter: %s", held, now)
	}
	h, err := events.Read(reconcile.EventsPath(e.agentDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range h.Events {
		if ev.Type != events.TypeNormal {
			t.Errorf("event written: %+v", ev)
		}
	}
	for _, name := range []string{"discord", "slack"} {
		if !pids[e.state(name).PID] {
			t.Errorf("%s: its owner changed (pid %d) after a pass that could not see it", name, e.state(name).PID)
		}
	}
}

// onceUnseen runs --once under unshare flags and checks that it says it
// cannot examine either daemon.
func onceUnseen(t *testing.T, e *e2e, unshare string, flags []string) {
	t.Helper()
	r := onceUnshared(t, e, unshare, flags)
	code, stdout, stderr := r.code, r.stdout, r.stderr
	if code != exitNotDone {
		t.Errorf("--once under unshare %v: exit %d, want 1 (it could not examine the daemons)", flags, code)
	}
	for _, want := range []string{"discord: CannotExamine: cannot examine discord's daemon", "slack: CannotExamine: cannot examine slack's daemon", "status.json left as it was"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--once under unshare %v: output lacks %q:\n%s\nstderr: %s", flags, want, stdout, stderr)
		}
	}
}

// needUnshare is unshare's path, or skips: a PID namespace of its own
// needs root and util-linux.
func needUnshare(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a PID namespace of its own needs root (unshare --pid)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	return unshare
}

// onceUnshared runs --once under unshare flags.
func onceUnshared(t *testing.T, e *e2e, unshare string, flags []string) result {
	t.Helper()
	cmd := exec.Command(unshare, append(append(flags, binary), e.args("--once")...)...)
	cmd.Env = e.env
	return runCmd(t, cmd)
}

// A name dropped from the spec leaves the inventory once its daemon is
// proven gone: a pass that cannot see the daemon proves nothing, and
// keeps it; a pass that can see it then stops and prunes it.
func TestBlindPassPrunesNothing(t *testing.T) {
	t.Parallel()
	unshare := needUnshare(t)
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	pid := e.state("slack").PID
	e.writeSpec(bothBots[0])
	r := onceUnshared(t, e, unshare, []string{"--pid", "--fork", "--mount-proc"})
	if r.code != exitNotDone || !strings.Contains(r.stdout, "slack: CannotExamine: ") {
		t.Errorf("blind --once after slack left the spec: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	managed, _, err := reconcile.ReadInventory(e.agentDir, logr.Discard())
	if err != nil || !slices.Contains(managed, "slack") {
		t.Errorf("inventory after a blind pass: %v, %v; slack must stay until it is proven gone", managed, err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("slack's daemon (pid %d) is gone after a blind pass: %v", pid, err)
	}
	e.mustConverge()
	if managed, _, _ := reconcile.ReadInventory(e.agentDir, logr.Discard()); slices.Contains(managed, "slack") {
		t.Errorf("slack still in the inventory after a pass that could see it: %v", managed)
	}
}

// A held name whose daemon outlasted its SIGTERM (StopTimedOut) still
// runs: a blind pass sees only a record whose PID it cannot find, and must
// neither call it stopped nor write that into the loop's status.json.
func TestBlindPassLeavesATimedOutStopRunning(t *testing.T) {
	t.Parallel()
	unshare := needUnshare(t)
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1, graceful: "300ms"})
	e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseRunning && d.Converged
	})
	slack := e.state("slack")
	if err := syscall.Kill(slack.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(slack.PID, syscall.SIGCONT) })
	if r := runBinary(t, e.env, "stop", "slack", "--graceful-timeout", "300ms", "--agent-dir", e.agentDir); r.code != 1 {
		t.Fatalf("stop of a stuck daemon: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	e.waitStatus("slack StopTimedOut", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Reason == reconcile.ReasonStopTimedOut
	})
	r := onceUnshared(t, e, unshare, []string{"--pid", "--fork", "--mount-proc"})
	if r.code != exitNotDone || !strings.Contains(r.stdout, "slack: CannotExamine: ") {
		t.Errorf("blind --once beside a held daemon still running: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	st, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := daemonStatus(st, "slack"); d.Converged || d.Reason != reconcile.ReasonStopTimedOut {
		t.Errorf("status.json after the blind pass: %s %s converged=%v: %s; want the loop's StopTimedOut", d.Phase, d.Reason, d.Converged, d.Message)
	}
	if !canaryAlivePID(t, slack.PID) {
		t.Error("the held daemon is gone")
	}
}
