package main

import (
	"bufio"
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

// The README's first command: it converges on the fakes, and Ctrl-C leaves
// nothing behind.
func TestDemo(t *testing.T) {
	t.Parallel()
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
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines { // drain, so the demo never blocks on its output
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("demo exited with %v after SIGINT", err)
		}
	case <-time.After(e2eDeadline):
		t.Fatal("demo did not exit after SIGINT")
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
