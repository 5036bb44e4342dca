package platform_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

func TestProcessArgv(t *testing.T) {
	cmd := exec.Command("sleep", "120", "a b", "")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	inc, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	argv, err := platform.ProcessArgv(pid, inc)
	if err != nil || !slices.Equal(argv, []string{"sleep", "120", "a b", ""}) {
		t.Fatalf("ProcessArgv = %q, %v", argv, err)
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
	cmd := exec.Command("sleep", "120", strings.Repeat("x", platform.MaxArgvSize))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := platform.ProcessArgv(cmd.Process.Pid, inc); !errors.Is(err, platform.ErrArgvTooLong) {
		t.Fatalf("ProcessArgv = %v, want ErrArgvTooLong", err)
	}
}
