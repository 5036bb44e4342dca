package reconcile

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/spec"
)

// runConfigHelper stands in for a daemon: it reads its config to EOF; with
// none it exits 0 having written nothing, as a discarded standby does, and
// with one it runs until killed, as a handed-over standby does.
func runConfigHelper() int {
	data, err := io.ReadAll(os.Stdin)
	if err != nil || len(data) == 0 {
		return 0
	}
	select {}
}

// warmWorld is a reconciler whose daemons are runConfigHelper, with a pool
// of standbys for one name, "bot".
type warmWorld struct {
	t      *testing.T
	r      *Reconciler
	d      *spec.Daemon
	paths  ownership.Paths
	exe    string
	exited atomic.Int32 // ChildExited calls
}

func newWarmWorld(t *testing.T) *warmWorld {
	t.Helper()
	// Inherited by every daemon this reconciler starts: the test binary
	// then acts as the helper, not as the tests.
	t.Setenv(helperEnv, "config")
	t.Setenv("WARM_TEST_EXTRA", "x")
	t.Setenv("GORACE", "atexit_sleep_ms=0") // a race-built helper's exit, at once
	w := &warmWorld{t: t, exe: copyOfTestBinary(t)}
	agentDir := privateAgentDir(t)
	r, err := New(Options{AgentDir: agentDir, Executable: w.exe, Log: logr.Discard(),
		Store:       fsstore.New(agentDir, fsstore.Options{}),
		ChildExited: func(string) { w.exited.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.warm.close(10 * time.Second); _ = r.Close() })
	w.r = r
	cfg := spec.Config{Name: "bot", Provider: spec.ProviderSlack, Generation: 1, State: spec.StateRunning,
		ReadyTimeout: time.Second, GracefulTimeout: time.Second, KillTimeout: time.Second,
		Slack: &spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), AppToken: spec.NewSecret("xapp-1"), WorkspaceID: "T1", ChannelID: "C1"}}
	w.d = &spec.Daemon{Config: cfg, Identity: cfg.Identity()}
	r.warm = newStandbys(r, func(name string) *spec.Daemon {
		if name == w.d.Name() {
			return w.d
		}
		return nil
	})
	w.paths = ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(w.paths); err != nil {
		t.Fatal(err)
	}
	return w
}

// copyOfTestBinary is the test binary at a path of the test's own, so a
// test can replace it as an upgrade would.
func copyOfTestBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "reconciler")
	if err := os.WriteFile(exe+".new", data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

// healthyOutcome is what a reconcile of a name with a healthy owner returns.
func healthyOutcome() Outcome {
	return Outcome{Owner: &ownership.State{OwnerID: "owner-1"}, Status: DaemonStatus{Phase: PhaseRunning, Converged: true}}
}

func (w *warmWorld) standby() *standby {
	w.r.warm.mu.Lock()
	defer w.r.warm.mu.Unlock()
	return w.r.warm.byName["bot"]
}

// keep stands a standby by and returns it.
func (w *warmWorld) keep() *standby {
	w.t.Helper()
	w.r.warm.keep("bot", healthyOutcome())
	s := w.standby()
	if s == nil {
		w.t.Fatal("no standby after keep with a healthy owner")
	}
	return s
}

func waitDone(t *testing.T, ch <-chan struct{}, pid int, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s (pid %d) did not exit", what, pid)
	}
}

// spawn spawns bot; the daemon it gets, which runs until killed, is killed
// at the test's end.
func (w *warmWorld) spawn() *child {
	w.t.Helper()
	c, err := w.r.spawn(w.d, w.paths)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = syscall.Kill(c.pid, syscall.SIGKILL); <-c.done })
	return c
}

// checkDiscarded: a discarded standby exits 0 on its own, having written
// nothing, and its exit is nobody's child exit (the daemons this world
// spawned run on, so any call would be the standby's).
func (w *warmWorld) checkDiscarded(s *standby) {
	w.t.Helper()
	waitDone(w.t, s.reaped, s.c.pid, "the discarded standby")
	if s.c.exit != (daemonproto.Exit{Code: 0}) {
		w.t.Errorf("discarded standby %s, want exit 0", s.c.exit)
	}
	if n := w.exited.Load(); n != 0 {
		w.t.Errorf("a discarded standby's exit was reported as a child's exit (%d calls)", n)
	}
	if data, err := os.ReadFile(filepath.Join(w.paths.Dir, "daemon.log")); err == nil && len(data) > 0 {
		w.t.Errorf("daemon.log has %q", data)
	}
}

func TestStandbyIsHandedTheSpawn(t *testing.T) {
	w := newWarmWorld(t)
	s := w.keep()
	c := w.spawn()
	if c.pid != s.c.pid || c.ownerID != s.c.ownerID {
		t.Fatalf("spawned pid %d (%s), want the standby's %d (%s)", c.pid, c.ownerID, s.c.pid, s.c.ownerID)
	}
	if w.standby() != nil {
		t.Error("the handed-over standby is still in the set")
	}
	// With its config it runs (with none it would have exited): now its
	// exit is a child's exit like any spawned daemon's.
	if c.exited() {
		t.Fatalf("the handed-over standby %s: it got no config", c.exit)
	}
	if err := syscall.Kill(c.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s.reaped, c.pid, "the handed-over standby")
	if n := w.exited.Load(); n != 1 {
		t.Errorf("the handed-over daemon's exit: %d child exits reported, want 1", n)
	}
}

// Anything a spawn would start differently from the standby (all but the
// ownerId) makes the spawn start a fresh process, and the standby is
// discarded, never used.
func TestStandbyNotUsedForAnotherLaunch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(w *warmWorld)
	}{
		{"generation", func(w *warmWorld) {
			cfg := w.d.Config
			cfg.Generation = 2
			w.d = &spec.Daemon{Config: cfg, Identity: cfg.Identity()}
		}},
		{"environment", func(w *warmWorld) {
			// A spec now names it in fromEnv: no daemon may inherit it.
			w.r.setDesired(&spec.Result{Daemons: []*spec.Daemon{{Config: spec.Config{Name: "other"}, EnvNames: []string{"WARM_TEST_EXTRA"}}}})
		}},
		{"heartbeat flag", func(w *warmWorld) { w.r.opts.DaemonHeartbeat = time.Second }},
		{"executable replaced", func(w *warmWorld) {
			data, err := os.ReadFile(w.exe)
			if err != nil {
				w.t.Fatal(err)
			}
			if err := os.WriteFile(w.exe+".new", data, 0o700); err != nil {
				w.t.Fatal(err)
			}
			if err := os.Rename(w.exe+".new", w.exe); err != nil {
				w.t.Fatal(err)
			}
		}},
		{"daemon.log rotated", func(w *warmWorld) {
			log := filepath.Join(w.paths.Dir, "daemon.log")
			if err := os.Rename(log, log+".1"); err != nil {
				w.t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWarmWorld(t)
			s := w.keep()
			tc.change(w)
			c := w.spawn()
			if c.pid == s.c.pid {
				t.Fatalf("the standby (pid %d) was handed a spawn it does not match", s.c.pid)
			}
			w.checkDiscarded(s)
		})
	}
}

// After each reconcile, keep replaces a standby that no longer matches, and
// a spec change (revalidate) drops it at once: one per name at most.
func TestStandbyReplacedWhenItNoLongerMatches(t *testing.T) {
	w := newWarmWorld(t)
	s := w.keep()
	if again := w.keep(); again != s {
		t.Fatalf("keep with nothing changed replaced the standby (pid %d -> %d)", s.c.pid, again.c.pid)
	}
	w.r.opts.DaemonHeartbeat = time.Second
	next := w.keep()
	if next == s {
		t.Fatal("keep kept a standby whose argv differs")
	}
	w.checkDiscarded(s)

	// A spec that names a variable of its environment in fromEnv.
	res := &spec.Result{Daemons: []*spec.Daemon{w.d, {Config: spec.Config{Name: "other"}, EnvNames: []string{"WARM_TEST_EXTRA"}}}}
	w.r.setDesired(res)
	w.r.warm.revalidate(res)
	if w.standby() != nil {
		t.Fatal("revalidate kept a standby whose environment holds a fromEnv variable")
	}
	w.checkDiscarded(next)
}

// No standby without a healthy owner of a name desired Running.
func TestStandbyOnlyBehindAHealthyRunningOwner(t *testing.T) {
	w := newWarmWorld(t)
	s := w.keep()
	w.r.warm.keep("bot", Outcome{Status: DaemonStatus{Phase: PhaseCrashLoopBackOff}})
	if w.standby() != nil {
		t.Fatal("a standby was kept for a name with no healthy owner")
	}
	w.checkDiscarded(s)
	w.d.Config.State = spec.StateStopped
	w.r.warm.keep("bot", healthyOutcome())
	if w.standby() != nil {
		t.Fatal("a standby was started for a name desired Stopped")
	}
}

// A standby that ends on its own is replaced only after a back-off, and its
// exit is nobody's child exit.
func TestStandbyExitBacksOff(t *testing.T) {
	w := newWarmWorld(t)
	s := w.keep()
	_ = s.closeStdin() // as if it had read EOF on its own
	waitDone(t, s.reaped, s.c.pid, "the standby")
	if w.standby() != nil {
		t.Fatal("an exited standby stays in the set")
	}
	w.r.warm.keep("bot", healthyOutcome())
	if w.standby() != nil {
		t.Fatal("a standby was started again at once after one exited on its own")
	}
	if n := w.exited.Load(); n != 0 {
		t.Errorf("a standby's own exit was reported as a child's exit (%d calls)", n)
	}
}

// Closing the set (the loop stopping) discards every standby and waits for
// them; none is started afterwards.
func TestStandbysClosed(t *testing.T) {
	w := newWarmWorld(t)
	s := w.keep()
	w.r.warm.close(10 * time.Second)
	select {
	case <-s.reaped:
	default:
		t.Fatal("close returned before the standby exited")
	}
	w.checkDiscarded(s)
	w.r.warm.keep("bot", healthyOutcome())
	if w.standby() != nil {
		t.Fatal("a standby was started after close")
	}
}
