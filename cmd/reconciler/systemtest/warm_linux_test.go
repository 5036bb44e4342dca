package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// standbyProc is a warm replacement as /proc shows it.
type standbyProc struct {
	name    string
	pid     int
	inc     string
	ownerID string
	argv    []string
}

const msgStandingBy = "warm replacement standing by"

// waitStandby waits for the loop to log a warm replacement of name other
// than skip's, and checks that it is what the loop says: its child, with
// the daemon's command line for this agent dir and name.
func waitStandby(t testing.TB, e *e2e, loop *loopProc, name string, skip ...int) standbyProc {
	t.Helper()
	pid := 0
	loop.logs.waitLog(t, msgStandingBy+" for "+name, func(lines []map[string]any) bool {
		for _, m := range lines {
			if p, ok := m["pid"].(float64); ok && m["msg"] == msgStandingBy && m["name"] == name && !slices.Contains(skip, int(p)) {
				pid = int(p)
			}
		}
		return pid != 0
	})
	s := standbyProc{name: name, pid: pid}
	var err error
	if s.inc, err = platform.Incarnation(pid); err != nil {
		t.Fatalf("standby pid %d: %v", pid, err)
	}
	if s.argv, err = platform.ProcessArgv(pid, s.inc); err != nil {
		t.Fatalf("standby pid %d: %v", pid, err)
	}
	if ppid := parentOf(t, pid); ppid != loop.cmd.Process.Pid {
		t.Fatalf("standby pid %d is the child of %d, not of the loop (%d)", pid, ppid, loop.cmd.Process.Pid)
	}
	if flagOf(s.argv, daemonproto.FlagAgentDir) != e.agentDir || flagOf(s.argv, daemonproto.FlagName) != name || s.argv[1] != daemonproto.Command {
		t.Fatalf("standby pid %d runs %q", pid, s.argv)
	}
	s.ownerID = flagOf(s.argv, daemonproto.FlagOwnerID)
	return s
}

func flagOf(argv []string, flag string) string {
	if i := slices.Index(argv, "--"+flag); i >= 0 && i+1 < len(argv) {
		return argv[i+1]
	}
	return ""
}

func parentOf(t testing.TB, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// loopChildren are the loop's children running as a daemon of name.
func loopChildren(t *testing.T, loop *loopProc, name string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, en := range entries {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(loop.cmd.Process.Pid) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		argv := strings.Split(string(cmdline), "\x00")
		if len(argv) > 1 && argv[1] == daemonproto.Command && flagOf(argv, daemonproto.FlagName) == name {
			out = append(out, pid)
		}
	}
	return out
}

// checkNotAnOwner: no file of the name, and not its name lock, names s.
func checkNotAnOwner(t *testing.T, e *e2e, s standbyProc) {
	t.Helper()
	p := e.paths(s.name)
	if st := fsstore.ReadState(p).State; st != nil && (st.PID == s.pid || st.OwnerID == s.ownerID) {
		t.Errorf("state.json names the standby: %+v", st)
	}
	if data, err := os.ReadFile(p.Lock); err == nil {
		var l struct{ PID int }
		if json.Unmarshal(data, &l) == nil && l.PID == s.pid {
			t.Errorf("owner.lock names the standby: %s", data)
		}
	}
	if h, err := fsstore.NameLockHolder(p); err != nil {
		t.Fatal(err)
	} else if h != nil && h.PID == s.pid {
		t.Errorf("the standby (pid %d) holds the name lock", s.pid)
	}
	if st, err := reconcile.ReadStatus(e.agentDir); err == nil {
		for _, d := range st.Daemons {
			if d.PID == s.pid || d.OwnerID == s.ownerID {
				t.Errorf("status.json counts the standby: %+v", d)
			}
		}
	}
}

// checkWroteNothing: nothing under the agent dir mentions s: no record,
// no lock, no line of daemon.log (a standby that failed would say why there).
func checkWroteNothing(t *testing.T, e *e2e, s standbyProc) {
	t.Helper()
	_ = filepath.WalkDir(e.agentDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(s.ownerID)) {
			t.Errorf("%s mentions the standby's ownerId", path)
		}
		if filepath.Base(path) == "daemon.log" {
			for line := range strings.Lines(string(data)) {
				if !strings.HasPrefix(line, "{") {
					t.Errorf("daemon.log has a line no daemon logger wrote: %q", line)
				}
			}
		}
		return nil
	})
}

// waitGone waits for s to exit on its own.
func waitGone(t *testing.T, s standbyProc, what string) {
	t.Helper()
	proc, err := platform.OpenProcess(s.pid, s.inc)
	if err != nil {
		return // gone already
	}
	defer proc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	if err := proc.Wait(ctx); err != nil {
		t.Fatalf("%s: standby pid %d still runs: %v", what, s.pid, err)
	}
}

// spawnedLines are the loop's "spawned daemon" lines for name.
func spawnedLines(loop *loopProc, name string) []map[string]any {
	var out []map[string]any
	for _, m := range loop.logs.logLines() {
		if m["msg"] == "spawned daemon" && m["name"] == name {
			out = append(out, m)
		}
	}
	return out
}

// The owner SIGKILLed, the loop hands its config to the standby: the
// replacement is that very process (same pid, same start time). It counts
// as one restart, and the next standby takes its place.
func TestWarmReplacementTakesOverAKilledOwner(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop()
	paths := e.paths("slack")
	first := waitRecord(t, paths, "healthy", healthy).State
	sb := waitStandby(t, e, loop, "slack")
	checkNotAnOwner(t, e, sb)
	if flagOf(sb.argv, daemonproto.FlagGeneration) != "1" {
		t.Errorf("standby argv %q: want generation 1", sb.argv)
	}

	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec := waitRecord(t, paths, "replacement healthy", func(r ownership.Record) bool { return healthy(r) && r.State.OwnerID != first.OwnerID })
	if s := rec.State; s.PID != sb.pid || s.OwnerID != sb.ownerID || s.Incarnation != sb.inc {
		t.Fatalf("replacement is pid %d %s (%s), want the standby: pid %d %s (%s)", s.PID, s.OwnerID, s.Incarnation, sb.pid, sb.ownerID, sb.inc)
	}
	st := e.waitStatus("replacement ready", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID == sb.ownerID
	})
	if d, _ := daemonStatus(st, "slack"); d.Restarts != 1 {
		t.Errorf("restarts %d after one kill, want 1", d.Restarts)
	}
	lines := spawnedLines(loop, "slack")
	if len(lines) != 2 || lines[1]["pid"] != float64(sb.pid) || lines[1]["warm"] != true {
		t.Errorf("spawned daemon lines %v: want the first spawn, then the standby's, warm", lines)
	}

	next := waitStandby(t, e, loop, "slack", sb.pid)
	checkNotAnOwner(t, e, next)
	loop.stop()
	waitGone(t, next, "after the loop's SIGTERM")
	checkWroteNothing(t, e, next)
	if alive, err := platform.Alive(sb.pid); err != nil || !alive {
		t.Errorf("the owner (pid %d) did not outlive the loop", sb.pid)
	}
}

// A generation change discards the standby (its argv says the old one):
// the new owner is a fresh process at the new generation, and the standby
// exits having written nothing.
func TestWarmReplacementDiscardedOnGenerationChange(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop()
	paths := e.paths("slack")
	waitRecord(t, paths, "healthy", healthy)
	sb := waitStandby(t, e, loop, "slack")

	e.writeSpec(object{name: "slack", provider: "slack", generation: 2})
	rec := waitRecord(t, paths, "healthy at generation 2", func(r ownership.Record) bool {
		return healthy(r) && r.State.Generation == spec.Generation(2).Opt()
	})
	if rec.State.PID == sb.pid {
		t.Fatalf("the generation-1 standby (pid %d) became the generation-2 owner", sb.pid)
	}
	argv, err := platform.ProcessArgv(rec.State.PID, rec.State.Incarnation)
	if err != nil || flagOf(argv, daemonproto.FlagGeneration) != "2" {
		t.Errorf("new owner argv %q (%v): want generation 2", argv, err)
	}
	waitGone(t, sb, "after the generation change")
	st := e.waitStatus("generation 2 ready", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID == rec.State.OwnerID
	})
	if d, _ := daemonStatus(st, "slack"); d.Restarts != 0 {
		t.Errorf("restarts %d after a roll, want 0 (a standby tried and failed?)", d.Restarts)
	}
	for _, m := range spawnedLines(loop, "slack") {
		if m["pid"] == float64(sb.pid) {
			t.Errorf("the discarded standby was handed a spawn: %v", m)
		}
	}
	checkWroteNothing(t, e, sb)

	next := waitStandby(t, e, loop, "slack", sb.pid)
	if flagOf(next.argv, daemonproto.FlagGeneration) != "2" {
		t.Errorf("standby after the roll: argv %q, want generation 2", next.argv)
	}
}

// A spec that starts naming a variable in fromEnv changes every daemon's
// environment: the standby started before it, whose environment still
// holds that variable, is discarded though no owner is replaced, and the
// one that replaces it, later handed the spawn, does not hold it.
func TestWarmReplacementDiscardedOnEnvChange(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop()
	paths := e.paths("slack")
	owner := waitRecord(t, paths, "healthy", healthy).State
	sb := waitStandby(t, e, loop, "slack")
	if !environHas(t, sb.pid, "E2E_DISCORD_TOKEN") {
		t.Fatal("precondition: no spec names E2E_DISCORD_TOKEN yet, so a daemon inherits it")
	}

	e.writeSpec(object{name: "slack", provider: "slack", generation: 1}, object{name: "discord", provider: "discord", generation: 1})
	waitGone(t, sb, "after a spec named its variable in fromEnv")
	next := waitStandby(t, e, loop, "slack", sb.pid)
	if environHas(t, next.pid, "E2E_DISCORD_TOKEN") {
		t.Fatal("the new standby inherits a variable the spec names in fromEnv")
	}
	if st := e.state("slack"); st.OwnerID != owner.OwnerID {
		t.Fatalf("the slack owner was replaced (%s -> %s): an env change alone replaces no owner", owner.OwnerID, st.OwnerID)
	}
	checkWroteNothing(t, e, sb)

	if err := syscall.Kill(owner.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec := waitRecord(t, paths, "replacement healthy", func(r ownership.Record) bool { return healthy(r) && r.State.OwnerID != owner.OwnerID })
	if rec.State.PID != next.pid {
		t.Fatalf("replacement pid %d, want the new standby's %d", rec.State.PID, next.pid)
	}
	assertNoToken(t, e.agentDir, rec.State.PID)
}

func environHas(t *testing.T, pid int, name string) bool {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	for kv := range strings.SplitSeq(string(data), "\x00") {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// --warm-replacements=false: no standby; the replacement of a killed owner
// is a process started after the kill.
func TestWarmReplacementsOff(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop("--warm-replacements=false")
	paths := e.paths("slack")
	first := waitRecord(t, paths, "healthy", healthy).State
	before := loopChildren(t, loop, "slack")
	if len(before) != 1 || before[0] != first.PID {
		t.Fatalf("the loop's daemon children are %v, want only the owner %d", before, first.PID)
	}
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec := waitRecord(t, paths, "replacement healthy", func(r ownership.Record) bool { return healthy(r) && r.State.OwnerID != first.OwnerID })
	if slices.Contains(before, rec.State.PID) {
		t.Fatalf("the replacement (pid %d) ran before the kill", rec.State.PID)
	}
	e.waitStatus("replacement ready", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Converged && d.OwnerID == rec.State.OwnerID
	})
	// Every keep has run once the loop has stopped: none started one.
	loop.stop()
	for _, m := range loop.logs.logLines() {
		if m["msg"] == msgStandingBy || m["warm"] == true {
			t.Errorf("with warm replacements off: %v", m)
		}
	}
}

// A SIGKILLed loop cannot discard its standbys: the kernel closes their
// stdin, and they exit on their own, writing nothing. The owners run on.
func TestWarmReplacementsExitWithAKilledLoop(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1}, object{name: "slack", provider: "slack", generation: 1})
	loop := e.startLoop()
	owners := map[string]*ownership.State{}
	var standbys []standbyProc
	for _, name := range []string{"discord", "slack"} {
		owners[name] = waitRecord(t, e.paths(name), name+" healthy", healthy).State
		standbys = append(standbys, waitStandby(t, e, loop, name))
	}
	if err := loop.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-loop.done
	for _, s := range standbys {
		waitGone(t, s, "after the loop was SIGKILLed")
		checkWroteNothing(t, e, s)
		checkNotAnOwner(t, e, s)
	}
	for name, o := range owners {
		if st := e.state(name); st.OwnerID != o.OwnerID || st.StoppedAt != nil {
			t.Errorf("%s: the owner did not run on: %+v", name, st)
		}
	}
}

// A daemon whose stdin closes before a byte of config (a discarded
// standby) exits 0 and leaves no trace: no file or dir created, not a line
// written, whether or not its agent dir exists. It waits for the config
// before anything else: blocked on that read, it has touched nothing.
func TestDaemonWithoutConfigLeavesNothing(t *testing.T) {
	t.Parallel()
	existing := t.TempDir()
	if err := os.MkdirAll(filepath.Join(existing, "sdk", "daemons", "slack"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, agentDir := range []string{filepath.Join(t.TempDir(), "absent"), existing} {
		before := treeOf(t, agentDir)
		cmd := exec.Command(binary, "daemon", "--agent-dir", agentDir, "--name", "slack", "--owner-id", "o-1", "--generation", "1")
		cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitReadingStdin(t, cmd.Process.Pid)
		if after := treeOf(t, agentDir); !maps.Equal(before, after) {
			t.Errorf("%s: waiting for its config, the daemon changed the agent dir: %v -> %v", agentDir, before, after)
		}
		if err := stdin.Close(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v, want exit 0", agentDir, err)
		}
		if out.Len() > 0 {
			t.Errorf("%s: the daemon wrote %q", agentDir, out.String())
		}
		if after := treeOf(t, agentDir); !maps.Equal(before, after) {
			t.Errorf("%s: the daemon changed the agent dir: %v -> %v", agentDir, before, after)
		}
	}
}

// waitReadingStdin waits until a thread of pid sleeps in a pipe read: the
// daemon, fully started, waits for its config.
func waitReadingStdin(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(e2eDeadline)
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		for _, task := range tasks {
			if wchan, err := os.ReadFile(task); err == nil && strings.Contains(string(wchan), "pipe") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never blocked reading its stdin", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// treeOf is every path under dir with its mode and size; nil if dir is absent.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%v %d", fi.Mode(), fi.Size())
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// What a warm replacement costs while it waits, beside the daemon it stands
// behind (production heartbeat): its RSS, how much of that is its own (the
// rest is the binary's pages, shared), and its CPU over a window.
func BenchmarkWarmReplacementCost(b *testing.B) {
	window := 20 * time.Second
	if v := os.Getenv("IDLE_WINDOW"); v != "" {
		window, _ = time.ParseDuration(v)
	}
	f := startFakes(b)
	for b.Loop() {
		e := newE2EWith(b, f)
		e.production = true
		e.writeSpec(bothBots...)
		loop := e.startLoop()
		pids := map[string]int{}
		for _, n := range []string{"discord", "slack"} {
			pids[n+"-owner"] = waitRecord(b, e.paths(n), n+" healthy", healthy).State.PID
			pids[n+"-standby"] = waitStandby(b, e, loop, n).pid
			waitReadingStdin(b, pids[n+"-standby"]) // its start is not idling
		}
		cpu0 := map[string]time.Duration{}
		for k, pid := range pids {
			cpu0[k] = cpuTime(b, pid)
		}
		time.Sleep(window) // the idle window being measured
		for k, pid := range pids {
			cpu := cpuTime(b, pid) - cpu0[k]
			b.ReportMetric(100*cpu.Seconds()/window.Seconds(), k+"-cpu-%")
			mem := memOf(b, pid)
			b.ReportMetric(float64(mem["VmRSS"])/1024, k+"-rss-MiB")
			b.ReportMetric(float64(mem["RssAnon"])/1024, k+"-anon-MiB")
			b.ReportMetric(float64(mem["Pss"])/1024, k+"-pss-MiB")
		}
		loop.stop()
		e.killDaemons()
	}
	b.ReportMetric(0, "ns/op")
}

// memOf is a process's /proc status and smaps_rollup figures, in KiB.
func memOf(b testing.TB, pid int) map[string]int64 {
	out := map[string]int64{}
	for _, f := range []string{"status", "smaps_rollup"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
		if err != nil {
			b.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			k, v, ok := strings.Cut(line, ":")
			if fields := strings.Fields(v); ok && len(fields) == 2 && fields[1] == "kB" {
				n, _ := strconv.ParseInt(fields[0], 10, 64)
				out[k] = n
			}
		}
	}
	return out
}
