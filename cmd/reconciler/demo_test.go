package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

// The README's first command: it converges on the fakes, and leaves
// nothing behind however it ends: Ctrl-C, a closed terminal (SIGHUP), or a
// reader of its output that went away (| head).
func TestDemo(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(cmd *exec.Cmd, stdout io.ReadCloser) error
	}{
		{"Ctrl-C", func(cmd *exec.Cmd, _ io.ReadCloser) error { return cmd.Process.Signal(syscall.SIGINT) }},
		{"closed terminal", func(cmd *exec.Cmd, _ io.ReadCloser) error { return cmd.Process.Signal(syscall.SIGHUP) }},
		{"output pipe closed", func(_ *exec.Cmd, stdout io.ReadCloser) error { return stdout.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runDemo(t, tc.end)
		})
	}
}

func runDemo(t *testing.T, end func(*exec.Cmd, io.ReadCloser) error) {
	cmd := exec.Command(binary, "demo", "--print-every", "200ms")
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	agentDirRe := regexp.MustCompile(`agent dir (\S+)`)
	readyRow := regexp.MustCompile(`^(discord|slack)\s+\S+\s+Running\s+Running\s+1\s+(\d+)\s+True`)
	var agentDir string
	tryLines := 0
	pids := map[string]int{}
	deadline := time.After(e2eDeadline)
	for len(pids) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("demo output ended before two Ready daemons")
			}
			if m := agentDirRe.FindStringSubmatch(l); m != nil {
				agentDir = m[1]
			}
			if strings.HasPrefix(l, "demo:   ") && strings.Contains(l, "--agent-dir") {
				tryLines++
			}
			if m := readyRow.FindStringSubmatch(l); m != nil {
				pids[m[1]], _ = strconv.Atoi(m[2])
			}
		case <-deadline:
			t.Fatalf("demo did not show two Ready daemons within %v", e2eDeadline)
		}
	}
	if agentDir == "" || !strings.HasPrefix(filepath.Base(agentDir), "reconciler-demo-") {
		t.Fatalf("agent dir not announced: %q", agentDir)
	}
	if tryLines == 0 {
		t.Error("the demo does not say what to try from another shell")
	}
	if err := end(cmd, stdout); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines { // drain, so the demo never blocks on its output
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo exited with %v", err)
		}
	case <-time.After(e2eDeadline):
		t.Fatal("demo did not exit")
	}
	for name, pid := range pids {
		if alive, _ := platform.Alive(pid); alive {
			t.Errorf("%s daemon (pid %d) still running after the demo", name, pid)
		}
	}
	if _, err := os.Stat(agentDir); !os.IsNotExist(err) {
		t.Errorf("agent dir %s left behind: %v", agentDir, err)
	}
}
