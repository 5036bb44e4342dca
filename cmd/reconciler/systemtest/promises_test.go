package systemtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// stillRunning fails the test if the owner s describes has exited.
func stillRunning(t *testing.T, exited <-chan time.Time, s *ownership.State, what string) {
	t.Helper()
	select {
	case at := <-exited:
		t.Fatalf("%s: owner pid %d (%s) exited, last seen alive at %v", what, s.PID, s.OwnerID, at)
	default:
	}
	if alive, err := platform.Alive(s.PID); err != nil || !alive {
		t.Fatalf("%s: owner pid %d is gone (%v)", what, s.PID, err)
	}
}

// An operator copies d1's daemon dir to set up a second bot. The copied
// record names d1's live daemon, which is not d3's: d3 gets its own daemon,
// and d1's is never signalled.
func TestCopiedDaemonDirLeavesItsOriginalAlone(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	d1 := object{name: "d1", provider: "slack", generation: 1}
	e.writeSpec(d1)
	e.mustConverge()
	orig := e.state("d1")
	exited := watchExit(t, orig)

	if out, err := exec.Command("cp", "-a", e.paths("d1").Dir, e.paths("d3").Dir).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
	e.writeSpec(d1, object{name: "d3", provider: "discord", generation: 2})
	if r := e.once(); r.code != 0 {
		t.Fatalf("--once after the copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	stillRunning(t, exited, orig, "d1 after d3's pass")
	if now := e.state("d1"); now.OwnerID != orig.OwnerID || now.PID != orig.PID {
		t.Errorf("d1's record changed: %+v", now)
	}
	d3 := e.state("d3")
	if d3.PID == orig.PID || d3.OwnerID == orig.OwnerID || d3.Kind != "discord" {
		t.Errorf("d3 is not its own daemon: %+v", d3)
	}
}

// Records naming live processes that are no daemon of theirs (a process
// of the user, the loop itself) are stale: the process is never signalled
// and the name gets a daemon of its own.
func TestRecordNamingAnotherProcessIsNeverSignalled(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	canary := startCanary(t)
	// Drifted (an identity no spec has) and behind: either would be stopped
	// and replaced if the process were an owner.
	plant := func(name string, pid int) {
		t.Helper()
		inc, err := platform.Incarnation(pid)
		if err != nil {
			t.Fatal(err)
		}
		p := e.paths(name)
		if err := fsstore.EnsureDir(p); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UnixMilli()
		s := ownership.State{Version: 1, Kind: "slack", PID: pid, OwnerID: "planted-" + name, Identity: "0000000000000000",
			Incarnation: inc, StartedAt: now - 1000, HeartbeatAt: now, TransportHealthy: true, Generation: spec.Generation(0).Opt()}
		if err := os.WriteFile(p.State, s.Marshal(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	plant("canary", canary.Process.Pid)
	loop := e.startLoop()
	plant("loop", loop.cmd.Process.Pid)
	// Two Slack daemons at once: two apps, or they are TokenInUse.
	e.writeSpec(object{name: "canary", provider: "slack", generation: 1}, object{name: "loop", provider: "slack", generation: 1, tokenEnv: "E2E_SLACK_APP2"})
	e.waitStatus("both converged", func(s *reconcile.Status) bool {
		a, _ := daemonStatus(s, "canary")
		b, _ := daemonStatus(s, "loop")
		return a.Converged && b.Converged
	})
	if !canaryAlive(t, canary) {
		t.Fatal("the canary named by a record was killed")
	}
	select {
	case <-loop.done:
		t.Fatalf("the loop stopped itself:\n%s", loop.logs)
	default:
	}
	for _, name := range []string{"canary", "loop"} {
		if s := e.state(name); strings.HasPrefix(s.OwnerID, "planted-") {
			t.Errorf("%s still has the planted record: %+v", name, s)
		}
	}
}

// rm -rf sdk/ under live daemons, which cannot notice (stopped): a fresh
// reconciler has no file left that says they run, yet it starts nothing
// beside them (the kernel-held name lock), says who holds each name, and
// the fakes never see two sessions of one bot. Once they go, it converges.
func TestRemovedStateNeverRunsTwoOwners(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	olds := map[string]*ownership.State{}
	for _, b := range bothBots {
		olds[b.name] = e.state(b.name)
		freeze(t, olds[b.name])
	}
	removeAllAsAnOperator(t, filepath.Join(e.agentDir, "sdk"))
	r := e.once()
	if r.code != 1 || !strings.Contains(r.stdout, reconcile.ReasonOwnerWithoutRecord) {
		t.Errorf("--once beside owners whose files are gone: exit %d, want 1 naming %s\n%s%s", r.code, reconcile.ReasonOwnerWithoutRecord, r.stdout, r.stderr)
	}
	for name, old := range olds {
		if !strings.Contains(r.stdout, strconv.Itoa(old.PID)) {
			t.Errorf("--once does not name %s's holder pid %d:\n%s", name, old.PID, r.stdout)
		}
		if rec := fsstore.ReadState(e.paths(name)); rec.State != nil {
			t.Errorf("a second %s owner was started: %s", name, rec.Raw)
		}
	}
	e.assertOneSessionEach()

	exits := map[string]<-chan time.Time{}
	for name, old := range olds {
		exits[name] = watchExit(t, old)
		if err := syscall.Kill(old.PID, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
	}
	e.startLoop()
	e.waitStatus("new owners ready", func(s *reconcile.Status) bool {
		for name, old := range olds {
			if d, _ := daemonStatus(s, name); !d.Converged || d.OwnerID == "" || d.OwnerID == old.OwnerID {
				return false
			}
		}
		return true
	})
	for name := range olds {
		lastAlive := <-exits[name]
		if started := time.UnixMilli(e.state(name).StartedAt); !started.Add(time.Millisecond).After(lastAlive) {
			t.Errorf("new %s owner started at %v, while the old one was alive at %v", name, started, lastAlive)
		}
	}
	e.assertOneSessionEach()
}

// The same, with daemons that do notice (their next heartbeat fails) and a
// reconciler run at once: whoever wins the race, one session per bot.
func TestRemovedStateUnderRunningDaemons(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	removeAllAsAnOperator(t, filepath.Join(e.agentDir, "sdk"))
	_ = e.once() // races the daemons' exits: 0 or 1, never a second owner
	e.startLoop()
	e.waitStatus("converged again", func(s *reconcile.Status) bool {
		for _, b := range bothBots {
			if d, _ := daemonStatus(s, b.name); !d.Converged {
				return false
			}
		}
		return true
	})
	e.assertOneSessionEach()
}

// assertOneSessionEach fails the test if either fake ever saw two live
// sessions of one bot at once.
func (e *e2e) assertOneSessionEach() {
	e.t.Helper()
	for _, p := range []spec.Provider{spec.ProviderDiscord, spec.ProviderSlack} {
		if _, maxLive := e.f.liveSessions(p); maxLive > 1 {
			e.t.Errorf("the %s fake saw %d live sessions of one bot at once", p, maxLive)
		}
	}
}
