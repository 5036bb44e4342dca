package platform_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

func TestAlive(t *testing.T) {
	h := startHelper(t, "", "block")
	pid := h.Cmd.Process.Pid
	if alive, err := platform.Alive(pid); err != nil || !alive {
		t.Fatalf("Alive(running child) = %v, %v", alive, err)
	}
	h.In.Close()
	if err := h.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if alive, err := platform.Alive(pid); err != nil || alive {
		t.Fatalf("Alive(reaped child) = %v, %v", alive, err)
	}
}

func TestAliveRejectsInvalidPIDs(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{0, -1, -pidMax, pidMax + 1, 1 << 40} {
		alive, err := platform.Alive(pid)
		if !errors.Is(err, platform.ErrInvalidPID) || alive {
			t.Errorf("Alive(%d) = %v, %v; want ErrInvalidPID", pid, alive, err)
		}
		if !strings.Contains(err.Error(), strconv.Itoa(pid)) {
			t.Errorf("Alive(%d) error %q does not name the pid", pid, err)
		}
	}
	if _, err := platform.Alive(pidMax); err != nil {
		t.Errorf("Alive(pid_max=%d) = %v; the maximum itself is valid", pidMax, err)
	}
}

// EPERM means the process exists but is not ours: it is alive, never dead.
// Both processes run as (different) unprivileged users, so kill(2) really
// answers EPERM.
func TestAliveEPERMIsAlive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run processes as two other users")
	}
	exe := copyTestBinary(t, "platform.test")
	target := startHelper(t, exe, "block", withCredential(65534, 65534))
	checker := startHelper(t, exe, "alive",
		withCredential(65533, 65533),
		withEnv(helperPIDEnv+"="+strconv.Itoa(target.Cmd.Process.Pid)))
	got := checker.Recv(t)
	if want := "alive=true err=<nil> kill=operation not permitted"; got != want {
		t.Fatalf("helper as uid 65533 on a uid 65534 process: %q, want %q", got, want)
	}
}

// copyTestBinary copies the test binary under name into a fresh directory
// that every user may enter, so helpers can run as other users or under a
// chosen name.
func copyTestBinary(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "platform-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(testBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func withCredential(uid, gid uint32) helperOpt {
	return func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
}
