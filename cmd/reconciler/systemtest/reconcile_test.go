package systemtest

import (
	"bytes"
	"context"
	"errors"
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

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

var bothBots = []object{{name: "discord", provider: "discord", generation: 1}, {name: "slack", provider: "slack", generation: 1}}

func (e *e2e) mustConverge(extra ...string) {
	e.t.Helper()
	if r := e.once(extra...); r.code != 0 {
		e.t.Fatalf("--once exit %d, want 0\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// 1. A fresh agent dir converges in one pass: both healthy, one connection each.
func TestOnceFreshConverges(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	for _, name := range []string{"discord", "slack"} {
		if rec := fsstore.ReadState(e.paths(name)); !healthy(rec) {
			t.Errorf("%s not healthy after --once: %s", name, rec.Raw)
		}
	}
	for _, p := range providers {
		if live, maxLive := e.f.liveSessions(p); live != 1 || maxLive != 1 {
			t.Errorf("%s: %d live sessions (max %d), want exactly one", p, live, maxLive)
		}
	}
	// A second pass attaches: same owners, nothing spawned.
	before := e.state("discord").OwnerID
	e.mustConverge()
	if after := e.state("discord").OwnerID; after != before {
		t.Errorf("a converged pass replaced the owner: %s -> %s", before, after)
	}
	assertNoTokenAnywhere(t, e)
}

// 2 and 3. A raised generation or a changed token replaces the daemon; the old
// one is proven dead before the new one starts, and the service never sees two.
func TestOnceReplacesOnGenerationAndIdentity(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	e.mustConverge()
	old := e.state("discord")
	oldExit := watchExit(t, old)

	e.writeSpec(object{name: "discord", provider: "discord", generation: 2})
	e.mustConverge()
	cur := e.state("discord")
	lastAlive := <-oldExit
	if cur.OwnerID == old.OwnerID || cur.Generation != spec.Generation(2).Opt() {
		t.Fatalf("not replaced: %+v", cur)
	}
	// startedAt is truncated to the millisecond.
	if started := time.UnixMilli(cur.StartedAt); !started.Add(time.Millisecond).After(lastAlive) {
		t.Errorf("new owner started at %v, while the old one was still alive at %v", started, lastAlive)
	}
	if _, maxLive := e.f.liveSessions("discord"); maxLive != 1 {
		t.Errorf("the fake saw %d live sessions at once", maxLive)
	}

	// Identity drift: the same name with a different token.
	e.env = append(e.env, "E2E_DISCORD_TOKEN_2="+discordToken)
	prev := cur
	prevExit := watchExit(t, prev)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 2, extra: "  redact: true\n"})
	e.mustConverge()
	cur = e.state("discord")
	<-prevExit
	if cur.OwnerID == prev.OwnerID || cur.Identity == prev.Identity {
		t.Fatalf("identity drift not replaced: %+v", cur)
	}
}

// watchExit reports, once the process of a record has exited, the last
// time it was seen alive: a lower bound of its exit that a slow test
// goroutine cannot push later (the time the exit was noticed can be).
func watchExit(t *testing.T, s *ownership.State) <-chan time.Time {
	t.Helper()
	proc, err := platform.OpenProcess(s.PID, s.Incarnation)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan time.Time, 1)
	go func() {
		defer proc.Close()
		defer close(ch)
		deadline := time.Now().Add(2 * e2eDeadline)
		for time.Now().Before(deadline) {
			alive := time.Now()
			// Short waits, each one a fresh proof of life when it times out.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
			err := proc.Wait(ctx)
			cancel()
			if err == nil {
				ch <- alive
				return
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("watching pid %d: %v", s.PID, err)
				return
			}
		}
	}()
	return ch
}

// 4. Stopped stops gracefully; removed is pruned; never managed is left alone.
func TestOnceStopPruneUnmanaged(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()

	// A daemon dir this reconciler never managed, with a stopped record.
	stranger := e.paths("stranger")
	if err := os.MkdirAll(stranger.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	strangerRecord := []byte(`{"version":1,"kind":"discord","pid":999999,"ownerId":"x","identity":"y","incarnation":"linux:1","startedAt":1,"heartbeatAt":1,"transportHealthy":false,"generation":1,"stoppedAt":2}` + "\n")
	if err := os.WriteFile(stranger.State, strangerRecord, 0o600); err != nil {
		t.Fatal(err)
	}

	e.writeSpec(object{name: "discord", provider: "discord", generation: 1, state: "Stopped"}, bothBots[1])
	e.mustConverge()
	st := e.state("discord")
	if st.StoppedAt == nil || st.TransportHealthy {
		t.Errorf("Stopped: record %+v, want stoppedAt set and transport false", st)
	}
	if _, err := os.Lstat(e.paths("discord").Lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("owner.lock left after a graceful stop: %v", err)
	}

	e.writeSpec(object{name: "discord", provider: "discord", generation: 1, state: "Stopped"})
	slackOwner := e.state("slack")
	slackExit := watchExit(t, slackOwner)
	e.mustConverge()
	<-slackExit
	if st := e.state("slack"); st.StoppedAt == nil {
		t.Errorf("removed object not pruned: %+v", st)
	}
	status, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := daemonStatus(status, "stranger"); !ok || d.Phase != reconcile.PhaseUnmanaged {
		t.Errorf("stranger status = %+v, want Unmanaged", d)
	}
	if got, _ := os.ReadFile(stranger.State); !bytes.Equal(got, strangerRecord) {
		t.Errorf("an unmanaged record was changed:\n%s", got)
	}
}

// startCanary starts a process that must never be signalled; it reports
// through a pipe if it gets SIGTERM.
func startCanary(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func canaryAlive(t *testing.T, cmd *exec.Cmd) bool {
	t.Helper()
	alive, err := platform.Alive(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return alive
}

func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

// 5. A malformed record naming a live process: refused, nothing touched.
func TestOnceMalformedRecordTouchesNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	canary := startCanary(t)
	inc, err := platform.Incarnation(canary.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	p := e.paths("discord")
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// generation is a string: malformed.
	bad := []byte(`{"version":1,"kind":"discord","pid":` + itoa(canary.Process.Pid) + `,"ownerId":"o","identity":"i","incarnation":"` + inc + `","startedAt":` + itoa64(time.Now().UnixMilli()) + `,"heartbeatAt":` + itoa64(time.Now().UnixMilli()) + `,"transportHealthy":true,"generation":"1"}` + "\n")
	if err := os.WriteFile(p.State, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshotDir(t, p.Dir)
	r := e.once()
	if r.code != 1 || !strings.Contains(r.stdout, "MalformedOwnerRecord") {
		t.Errorf("exit %d, stdout %q; want 1 naming MalformedOwnerRecord", r.code, r.stdout)
	}
	if !canaryAlive(t, canary) {
		t.Fatal("the canary was killed")
	}
	after := snapshotDir(t, p.Dir)
	if len(after) != len(before) {
		t.Errorf("files changed: before %v, after %v", keys(before), keys(after))
	}
	for name, data := range before {
		if !bytes.Equal(after[name], data) {
			t.Errorf("%s changed", name)
		}
	}
	if live, _ := e.f.liveSessions("discord"); live != 0 {
		t.Errorf("a daemon was started next to a record that cannot be proven")
	}
}

// 6. A record whose PID is live but names another process (reused PID): the
// process is untouched and a new daemon is spawned.
func TestOnceReusedPIDIsStopped(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	canary := startCanary(t)
	p := e.paths("discord")
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := itoa64(time.Now().UnixMilli())
	rec := `{"version":1,"kind":"discord","pid":` + itoa(canary.Process.Pid) + `,"ownerId":"o","identity":"i","incarnation":"linux:1","startedAt":` + now + `,"heartbeatAt":` + now + `,"transportHealthy":true,"generation":1}` + "\n"
	if err := os.WriteFile(p.State, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	e.mustConverge()
	if !canaryAlive(t, canary) {
		t.Fatal("the process holding the reused PID was killed")
	}
	if st := e.state("discord"); st.PID == canary.Process.Pid {
		t.Error("no new daemon was spawned")
	}
}

// 7. A healthy owner at a newer generation is attached and never signalled.
func TestOnceAttachesNewerGeneration(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	cfg := e.f.config("discord", "discord", 9)
	d := startDaemon(t, e.agentDir, cfg, "newer-owner")
	waitRecord(t, e.paths("discord"), "healthy", healthy)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 5})
	e.mustConverge()
	if st := e.state("discord"); st.OwnerID != "newer-owner" || st.StoppedAt != nil {
		t.Errorf("newer owner replaced or stopped: %+v", st)
	}
	select {
	case <-d.done:
		t.Fatalf("the newer daemon exited: %s", d.output.String())
	default:
	}
}

// 8. A hung owner (SIGSTOPped: its heartbeat goes stale) is replaced through
// SIGKILL after gracefulTimeout.
func TestOnceReplacesHungOwner(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1, graceful: "2s"})
	e.mustConverge()
	if err := syscall.Kill(e.state("discord").PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Read after the stop: a heartbeat written between an earlier read and
	// SIGSTOP would make the stale deadline below too early.
	hung := e.state("discord")
	exited := watchExit(t, hung)
	// Stale means older than the heartbeat TTL: wait for it, on a deadline.
	stale := time.Until(time.UnixMilli(hung.HeartbeatAt).Add(ownership.HeartbeatTTL + 100*time.Millisecond))
	select {
	case <-exited:
		t.Fatal("the stopped daemon exited on its own")
	case <-time.After(stale):
	}
	start := time.Now()
	e.mustConverge()
	<-exited
	took := time.Since(start)
	if cur := e.state("discord"); cur.OwnerID == hung.OwnerID || !cur.TransportHealthy {
		t.Errorf("hung owner not replaced: %+v", cur)
	}
	if took < 2*time.Second {
		t.Errorf("replaced in %v: SIGKILL must wait for gracefulTimeout (2s)", took)
	}
}

// 9. An invalid spec: --once exits 2 touching nothing; the loop keeps the
// daemons running and reports SpecValid=False.
func TestInvalidSpecKeepsDaemons(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	loop := e.startLoop()
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	owner := e.state("discord").OwnerID

	if err := os.WriteFile(e.specPath, []byte("apiVersion: reconciler.gjc.dev/v1alpha1\nkind: ChatDaemon\nmetadata: {name: discord}\nspec: {provider: discord, generation: -1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.once(); r.code != 2 {
		t.Errorf("--once on an invalid spec: exit %d, want 2 (stdout %q)", r.code, r.stdout)
	}
	st := e.waitStatus("SpecValid=False", func(s *reconcile.Status) bool { return !s.SpecValid })
	if countReady(st) != 2 {
		t.Errorf("daemons not kept while the spec is invalid: %+v", st.Daemons)
	}
	if cur := e.state("discord"); cur.OwnerID != owner || cur.StoppedAt != nil {
		t.Errorf("a daemon was touched because of an invalid spec: %+v", cur)
	}
	_ = loop
}

func countReady(s *reconcile.Status) int {
	n := 0
	for _, d := range s.Daemons {
		if d.Phase == reconcile.PhaseRunning && d.Converged {
			n++
		}
	}
	return n
}

// 10. Eight concurrent --once on one agent dir: all converge, one owner each.
func TestConcurrentOnce(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	var wg sync.WaitGroup
	results := make([]result, 8)
	for i := range results {
		wg.Go(func() { results[i] = e.once() })
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Errorf("run %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	for _, p := range providers {
		if live, maxLive := e.f.liveSessions(p); live != 1 || maxLive != 1 {
			t.Errorf("%s: %d live sessions, max %d; want one owner", p, live, maxLive)
		}
	}
}

// 11. The loop respawns a SIGKILLed daemon at once, and backs off one that
// keeps dying.
func TestLoopRespawnsAndBacksOff(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	loop := e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })

	kill := func() *ownership.State {
		st := e.state("discord")
		if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		return st
	}
	first := kill()
	e.waitStatus("respawned", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Converged && d.OwnerID != first.OwnerID && d.Restarts >= 1
	})
	killedAt := time.Now() // before the kill: the loop may notice it first
	second := kill()
	e.waitStatus("ready after the back-off", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Converged && d.OwnerID != second.OwnerID && d.Restarts >= 2
	})
	if started := time.UnixMilli(e.state("discord").StartedAt); started.Sub(killedAt) < 900*time.Millisecond {
		t.Errorf("respawned %v after the second crash, want the 1s back-off", started.Sub(killedAt))
	}
	// The back-off lasts a second in status.json, too short to be sure a
	// loaded test sees it there; the loop logs every phase change.
	loop.stop()
	var backoff map[string]any
	for _, m := range loop.logs.logLines() {
		if m["msg"] == "daemon phase" && m["phase"] == string(reconcile.PhaseCrashLoopBackOff) {
			backoff = m
		}
	}
	if backoff == nil || backoff["reason"] != reconcile.ReasonCrashLoopBackOff || !strings.Contains(fmt.Sprint(backoff["message"]), "next start in") {
		t.Errorf("no CrashLoopBackOff phase change with its next start logged; last one seen: %v", backoff)
	}
}

// 12. No token in any daemon's argv, environment, log, record, or status.json.
func assertNoTokenAnywhere(t *testing.T, e *e2e) {
	t.Helper()
	for _, name := range []string{"discord", "slack"} {
		if st := fsstore.ReadState(e.paths(name)).State; st != nil && st.StoppedAt == nil {
			assertNoToken(t, e.agentDir, st.PID)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func canaryAlivePID(t *testing.T, pid int) bool {
	t.Helper()
	alive, err := platform.Alive(pid)
	if err != nil {
		t.Fatal(err)
	}
	return alive
}

func ownershipRecord(e *e2e, name string) ownership.Record { return fsstore.ReadState(e.paths(name)) }

// A dead owner that never released (SIGKILLed) under a Stopped spec is
// converged; the idle loop must not spin on it.
func TestLoopIdleOnDeadUnreleasedOwner(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	e.mustConverge()
	st := e.state("discord")
	exited := watchExit(t, st)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1, state: "Stopped"})
	loop := e.startLoop()
	e.waitStatus("converged Stopped", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Phase == reconcile.PhaseStopped && d.Converged
	})
	// Two daemon heartbeat periods of nothing: the loop stays asleep.
	idle := time.After(2 * testHeartbeat * 3)
	<-idle // a measurement window, not a wait for an event
	loop.stop()
	final, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	if final.Reconciles > 10 {
		t.Errorf("%d reconciles for one idle, converged name: the loop spins", final.Reconciles)
	}
}

// Another reconciler holding the pass lock past --lock-timeout: exit 3.
func TestOnceLockTimeout(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	lock := filepath.Join(e.agentDir, "sdk", "reconciler", "lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := e.once("--lock-timeout", "300ms")
	if r.code != 3 || !strings.Contains(r.stderr, "another reconciler holds the lock") {
		t.Errorf("exit %d, stderr %q; want 3", r.code, r.stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("gave up after %v, want about the 300ms lock timeout", took)
	}
	if _, err := os.Stat(e.paths("discord").State); !os.IsNotExist(err) {
		t.Errorf("something was spawned without the lock: %v", err)
	}
}

// A daemon dir others can write to is refused: nothing is read as proof,
// written, or spawned there.
func TestOnceRefusesUnsafeDaemonDir(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	dir := e.paths("discord").Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r := e.once()
	if r.code != 1 || !strings.Contains(r.stdout, "discord: UnsafeOwnerDirectory") {
		t.Errorf("exit %d, stdout %q; want 1 naming UnsafeOwnerDirectory", r.code, r.stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files created in an unsafe dir: %v", entries)
	}
	if live, _ := e.f.liveSessions("discord"); live != 0 {
		t.Error("a daemon was started in an unsafe dir")
	}
}

// An operator removes a running daemon's dir. The owner it held, attached
// from an earlier pass rather than spawned by this loop, still runs until
// it notices: the loop must not start a second connection for the bot
// before that owner has exited, and then must start one.
func TestLoopWaitsForOwnerWhoseRecordVanished(t *testing.T) {
	t.Parallel()
	e, _, old, exited := attachedByLoop(t)
	removeAllAsAnOperator(t, e.paths("slack").Dir)
	e.waitStatus("a new owner ready", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID != "" && d.OwnerID != old.OwnerID
	})
	lastAlive := <-exited
	cur := e.state("slack")
	if started := time.UnixMilli(cur.StartedAt); !started.Add(time.Millisecond).After(lastAlive) {
		t.Errorf("new owner started at %v, while the old one was still alive at %v", started, lastAlive)
	}
	if live, maxLive := e.f.liveSessions(spec.ProviderSlack); live != 1 || maxLive != 1 {
		t.Errorf("the fake saw %d live sessions now, %d at once; want 1 and 1", live, maxLive)
	}
}

// freeze SIGSTOPs a daemon through a process reference that the test keeps
// and SIGKILLs at cleanup: once its record is gone, the e2e cleanup (which
// kills daemons by their records) cannot find it, and a test that fails
// before SIGCONT must not leave it stopped for good.
func freeze(t *testing.T, s *ownership.State) *platform.Process {
	t.Helper()
	proc, err := platform.OpenProcess(s.PID, s.Incarnation)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = proc.Signal(syscall.SIGKILL)
		_ = proc.Close()
	})
	if err := proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	return proc
}

// attachedByLoop starts a slack owner with --once, then a loop that attaches
// it (never its child), and returns once the loop says so.
func attachedByLoop(t *testing.T) (e *e2e, loop *loopProc, old *ownership.State, exited <-chan time.Time) {
	e = newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1, graceful: "1s"})
	e.mustConverge()
	old = e.state("slack")
	exited = watchExit(t, old)
	// The status --once wrote would say "attached" before the loop looked.
	if err := os.Remove(reconcile.StatusPath(e.agentDir)); err != nil {
		t.Fatal(err)
	}
	loop = e.startLoop()
	e.waitStatus("attached", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID == old.OwnerID
	})
	return e, loop, old, exited
}

// recordlessOwner makes the case of the tests below: an attached owner,
// SIGSTOPped so that it cannot notice, whose daemon dir an operator then
// removed. SIGCONT lets it find the loss and exit.
func recordlessOwner(t *testing.T) (e *e2e, loop *loopProc, old *ownership.State, exited <-chan time.Time) {
	e, loop, old, exited = attachedByLoop(t)
	freeze(t, old)
	removeAllAsAnOperator(t, e.paths("slack").Dir)
	return e, loop, old, exited
}

// The owner cannot notice: the loop reports OwnerWithoutRecord, never
// signals it (no record to fence against) and starts nothing until it has
// exited.
func TestLoopNeverStartsBesideRecordlessOwner(t *testing.T) {
	t.Parallel()
	e, loop, old, exited := recordlessOwner(t)
	st := e.waitStatus("OwnerWithoutRecord", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Reason == reconcile.ReasonOwnerWithoutRecord
	})
	if d, _ := daemonStatus(st, "slack"); !strings.Contains(d.Message, strconv.Itoa(old.PID)) {
		t.Errorf("the status does not name the owner's pid: %q", d.Message)
	}
	if rec := fsstore.ReadState(e.paths("slack")); rec.State != nil {
		t.Errorf("a second owner was started beside the stopped one: %s", rec.Raw)
	}

	// The next reconciler knows of it through status.json: neither an
	// operator's restart nor --once nor a new loop starts a second owner.
	loop.stop()
	if r := runBinary(t, e.env, "restart", "slack", "--agent-dir", e.agentDir); r.code != 1 || !strings.Contains(r.stdout+r.stderr, reconcile.ReasonOwnerWithoutRecord) {
		t.Errorf("restart beside a recordless owner: exit %d, want 1 naming %s\n%s%s", r.code, reconcile.ReasonOwnerWithoutRecord, r.stdout, r.stderr)
	}
	if r := e.once(); r.code != 1 || !strings.Contains(r.stdout, reconcile.ReasonOwnerWithoutRecord) {
		t.Errorf("--once beside a recordless owner: exit %d, want 1 naming %s\n%s%s", r.code, reconcile.ReasonOwnerWithoutRecord, r.stdout, r.stderr)
	}
	if rec := fsstore.ReadState(e.paths("slack")); rec.State != nil {
		t.Errorf("a new reconciler started a second owner beside the stopped one: %s", rec.Raw)
	}
	e.startLoop()

	if err := syscall.Kill(old.PID, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	e.waitStatus("a new owner ready", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID != "" && d.OwnerID != old.OwnerID
	})
	lastAlive := <-exited
	if started := time.UnixMilli(e.state("slack").StartedAt); !started.Add(time.Millisecond).After(lastAlive) {
		t.Errorf("new owner started at %v, while the old one was still alive at %v", started, lastAlive)
	}
	if _, maxLive := e.f.liveSessions(spec.ProviderSlack); maxLive != 1 {
		t.Errorf("the fake saw %d live sessions at once", maxLive)
	}
}

// Stopped is not converged while a recordless owner still holds the bot's
// connection.
func TestLoopStoppedWaitsForRecordlessOwner(t *testing.T) {
	t.Parallel()
	e, _, old, exited := recordlessOwner(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1, graceful: "1s", state: "Stopped"})
	st := e.waitStatus("Stopped, waiting on the owner", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.DesiredState == "Stopped" && d.Reason == reconcile.ReasonOwnerWithoutRecord
	})
	if d, _ := daemonStatus(st, "slack"); d.Converged {
		t.Errorf("converged while the owner still runs: %+v", d)
	}
	if err := syscall.Kill(old.PID, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-exited
	e.waitStatus("Stopped once it exited", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseStopped && d.Converged
	})
	if rec := fsstore.ReadState(e.paths("slack")); rec.State != nil {
		t.Errorf("an owner was started for a Stopped name: %s", rec.Raw)
	}
}

// No loop runs: an operator's restart replaces the owner, and the next
// reconciler must learn of the new one from status.json, or a record lost
// afterwards lets --once start a second owner beside it.
func TestRestartIsKnownToTheNextReconciler(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1, graceful: "1s"})
	e.mustConverge()
	// restart spawns with the production heartbeat (5 s): the owner notices
	// its lost record within that after SIGCONT.
	base := []string{"--agent-dir", e.agentDir}
	if r := runBinary(t, e.env, append([]string{"restart", "slack"}, base...)...); r.code != 0 {
		t.Fatalf("restart: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cur := e.state("slack")
	exited := watchExit(t, cur)
	proc := freeze(t, cur)
	removeAllAsAnOperator(t, e.paths("slack").Dir)
	if r := e.once(); r.code != 1 || !strings.Contains(r.stdout, reconcile.ReasonOwnerWithoutRecord) {
		t.Errorf("--once beside the restarted owner: exit %d, want 1 naming %s\n%s%s", r.code, reconcile.ReasonOwnerWithoutRecord, r.stdout, r.stderr)
	}
	if r := runBinary(t, e.env, append([]string{"stop", "slack"}, base...)...); r.code != 1 || !strings.Contains(r.stdout, reconcile.ReasonOwnerWithoutRecord) || !strings.Contains(r.stdout, strconv.Itoa(cur.PID)) {
		t.Errorf("stop of a recordless owner: exit %d, want 1 naming %s and pid %d\n%s%s", r.code, reconcile.ReasonOwnerWithoutRecord, cur.PID, r.stdout, r.stderr)
	}
	if rec := fsstore.ReadState(e.paths("slack")); rec.State != nil {
		t.Errorf("a second owner was started beside the restarted one: %s", rec.Raw)
	}
	if err := proc.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-exited
	e.mustConverge()
	if _, maxLive := e.f.liveSessions(spec.ProviderSlack); maxLive != 1 {
		t.Errorf("the fake saw %d live sessions at once", maxLive)
	}
}

// removeAllAsAnOperator is an operator's rm -rf of dir while the loop and
// its daemons run: a file they create in it meanwhile (a standby's
// daemon.log, a heartbeat's temp file) fails the removal with "directory not
// empty", and rm -rf run again removes it, as an operator would.
func removeAllAsAnOperator(t *testing.T, dir string) {
	t.Helper()
	var err error
	for range 100 {
		if err = os.RemoveAll(dir); !errors.Is(err, syscall.ENOTEMPTY) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}
