package reconcile

import (
	"os/exec"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/platform"
)

// A held owner saved in status.json is held again by the next reconciler
// only if it was saved in this boot: after a reboot another process can
// have the same pid and start ticks.
func TestSeedHeldOnlyFromThisBoot(t *testing.T) {
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
		r, err := New(Options{AgentDir: agentDir, Log: logr.Discard()})
		if err != nil {
			t.Fatal(err)
		}
		s := &Status{Version: 1, Daemons: []DaemonStatus{{Name: "bot", Phase: PhaseRunning,
			HeldOwner: &HeldOwner{PID: cmd.Process.Pid, Incarnation: inc, OwnerID: "o-1", BootID: tc.bootID}}}}
		if err := writeStatus(agentDir, s); err != nil {
			t.Fatal(err)
		}
		r.seedHeld()
		if got := r.heldAlive("bot") != nil; got != tc.held {
			t.Errorf("boot id %q: held = %v, want %v", tc.bootID, got, tc.held)
		}
		r.Close()
	}
}
