package platform_test

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// startBlocking starts the test binary as a "block" helper with args: it
// lives until the test ends, whatever its arguments say.
func startBlocking(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	exe := testBinary(t)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=block")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, inc
}

func TestProcessArgv(t *testing.T) {
	cmd, inc := startBlocking(t, "a b", "")
	pid := cmd.Process.Pid
	want := []string{cmd.Path, "a b", ""}
	argv, err := argvAfterExec(t, pid, inc, want[0])
	if err != nil || !slices.Equal(argv, want) {
		t.Fatalf("ProcessArgv = %q, %v; want %q", argv, err, want)
	}
	if _, err := platform.ProcessArgv(pid, "linux:1"); !errors.Is(err, platform.ErrIncarnationMismatch) {
		t.Fatalf("ProcessArgv with another incarnation = %v, want ErrIncarnationMismatch", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := platform.ProcessArgv(pid, inc); !errors.Is(err, platform.ErrProcessGone) {
		t.Fatalf("ProcessArgv of a reaped process = %v, want ErrProcessGone", err)
	}
}

func TestProcessArgvTooLong(t *testing.T) {
	cmd, inc := startBlocking(t, strings.Repeat("x", platform.MaxArgvSize))
	if _, err := argvAfterExec(t, cmd.Process.Pid, inc, cmd.Path); !errors.Is(err, platform.ErrArgvTooLong) {
		t.Fatalf("ProcessArgv = %v, want ErrArgvTooLong", err)
	}
}

// argvAfterExec reads pid's argv once it has exec'd exe: between fork and
// exec a child still shows its parent's command line.
func argvAfterExec(t *testing.T, pid int, inc, exe string) ([]string, error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		argv, err := platform.ProcessArgv(pid, inc)
		if (err == nil && len(argv) > 0 && argv[0] == exe && !slices.Equal(argv, os.Args)) ||
			errors.Is(err, platform.ErrArgvTooLong) || time.Now().After(deadline) {
			return argv, err
		}
		time.Sleep(time.Millisecond)
	}
}
