package platform_test

import (
	"errors"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

// Observe agrees with Alive and Incarnation: live with its incarnation, a
// zombie dead, a reaped process dead, an impossible PID rejected.
func TestObserve(t *testing.T) {
	h := startHelper(t, "", "block")
	pid := h.Cmd.Process.Pid
	want, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	if alive, inc, err := platform.Observe(pid); err != nil || !alive || inc != want {
		t.Fatalf("Observe(running) = %v, %q, %v; want true, %q", alive, inc, err, want)
	}
	// Killed but not reaped: a zombie, which Alive calls dead.
	if err := h.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proc, err := platform.OpenProcess(pid, want)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	proc.Close()
	if alive, _, err := platform.Observe(pid); err != nil || alive {
		t.Errorf("Observe(zombie) = %v, %v; want dead", alive, err)
	}
	_ = h.Cmd.Wait()
	if alive, _, err := platform.Observe(pid); err != nil || alive {
		t.Errorf("Observe(reaped) = %v, %v; want dead", alive, err)
	}
	if _, _, err := platform.Observe(-1); !errors.Is(err, platform.ErrInvalidPID) {
		t.Errorf("Observe(-1) = %v; want ErrInvalidPID", err)
	}
}
