package reconcile

import (
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"os"
	"os/exec"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// A held owner saved in status.json is held again by the next reconciler
// only if it was saved in this boot: after a reboot another process can
// have the same pid and start ticks.
func TestSeedTrackedOnlyFromThisBoot(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	boot, err := platform.BootID()
	if err != nil {
		t.Skipf("no boot id on this machine (%v): the fallback on boot time is what runs", err)
	}
	for _, tc := range []struct {
		bootID string
		held   bool
	}{
		{boot, true},
		{"another-boot", false},
	} {
		agentDir := t.TempDir()
		r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		s := &Status{Version: 1, Daemons: []DaemonStatus{{Name: "bot", Phase: PhaseRunning,
			TrackedOwner: &TrackedOwner{PID: cmd.Process.Pid, Incarnation: inc, OwnerID: "o-1", BootID: tc.bootID}}}}
		if err := writeStatus(agentDir, s); err != nil {
			t.Fatal(err)
		}
		r.seedTracked()
		if got := r.trackedAlive("bot") != nil; got != tc.held {
			t.Errorf("boot id %q: held = %v, want %v", tc.bootID, got, tc.held)
		}
		r.Close()
	}
}

// The held owners live in held.json, not in the report: a reconciler that
// held one saves it, and the next one holds it too though status.json was
// deleted in between.
func TestHeldOwnersSurviveDeletedStatus(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	agentDir := t.TempDir()
	first, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	first.seedTracked()
	st := first.state("bot")
	st.remember(first.store, &ownership.State{PID: cmd.Process.Pid, Incarnation: inc, OwnerID: "o-1"})
	first.saveTracked("bot", st.entry(first.store.Boot))
	first.Close()
	if err := os.Remove(StatusPath(agentDir)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	next, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	next.seedTracked()
	if h := next.trackedAlive("bot"); h == nil || h.PID != cmd.Process.Pid || h.OwnerID != "o-1" {
		t.Fatalf("held after status.json was deleted: %+v", h)
	}
}

// An unreadable held.json is left exactly as it is: a reconciler that
// cannot read it never replaces it with its own partial view.
func TestUnreadableTrackedFileIsNotOverwritten(t *testing.T) {
	agentDir := privateAgentDir(t)
	bad := []byte("{not json\n")
	if err := os.WriteFile(TrackedPath(agentDir), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.seedTracked()
	r.saveTracked("bot", &TrackedOwner{PID: 1, Incarnation: "linux:1", OwnerID: "o"})
	if got, err := os.ReadFile(TrackedPath(agentDir)); err != nil || string(got) != string(bad) {
		t.Fatalf("held.json = %q, %v; want it untouched", got, err)
	}
}
