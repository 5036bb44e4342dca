package systemtest

import (
	"bufio"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakesProc is a running `reconciler fakes`.
type fakesProc struct {
	cmd   *exec.Cmd
	lines chan string // its stdout, a line at a time; closed at its end
}

// startFakesCommand runs `reconciler fakes args...` and waits until it
// says it runs, or ended (then lines holds what it said and is closed).
func startFakesCommand(t *testing.T, args ...string) *fakesProc {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"fakes"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &fakesProc{cmd: cmd, lines: make(chan string, 100)}
	go func() {
		defer close(p.lines)
		s := bufio.NewScanner(out)
		for s.Scan() {
			p.lines <- s.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

// waitLine waits for a line of p's holding want, and returns every line
// read on the way; ok is false when p ended or the deadline passed first.
func (p *fakesProc) waitLine(want string, d time.Duration) (seen []string, ok bool) {
	deadline := time.After(d)
	for {
		select {
		case l, open := <-p.lines:
			if !open {
				return seen, false
			}
			seen = append(seen, l)
			if strings.Contains(l, want) {
				return seen, true
			}
		case <-deadline:
			return seen, false
		}
	}
}

// A newcomer's first steps: `fakes --agent-dir D` writes a spec the real
// loop runs on as it is; doctor finds every check ok against the fakes;
// one pass converges both bots; Ctrl-C stops the fakes.
func TestFakesAgentDirIsReadyToRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	p := startFakesCommand(t, "--agent-dir", dir)
	if seen, ok := p.waitLine("running until Ctrl-C", time.Minute); !ok {
		t.Fatalf("fakes did not say it runs; it said:\n%s", strings.Join(seen, "\n"))
	}
	e := &e2e{t: t, agentDir: dir, env: append(os.Environ(), "GORACE=atexit_sleep_ms=0")}
	t.Cleanup(e.killAllDaemons)

	linger := t.TempDir()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linger, u.Username), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "--agent-dir", dir, "doctor", "--linger-dir", linger)
	if r.code != 0 || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("doctor against the fakes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"this machine:", "discord (discord):", "slack (slack):", "telegram (telegram):", "ok    token:", "ok    bot token:", "ok    lingering:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor's report lacks %q:\n%s", want, r.stdout)
		}
	}

	if r := e.once(); r.code != 0 || !strings.Contains(r.stdout, "converged: 3 daemons running") {
		t.Fatalf("--once on the fakes' spec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "--agent-dir", dir, "stop", "--all"); r.code != 0 {
		t.Fatalf("stop --all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if seen, ok := p.waitLine("fakes: stopped", time.Minute); !ok {
		t.Fatalf("fakes did not stop on Ctrl-C; it said:\n%s", strings.Join(seen, "\n"))
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("fakes ended with %v after Ctrl-C", err)
	}
}

// A spec fakes did not write is somebody's: it is refused, named, and
// left exactly as it was.
func TestFakesLeavesAForeignSpec(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "daemons.yaml")
	const mine = "# my own spec\n"
	if err := os.WriteFile(specPath, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "fakes", "--agent-dir", dir)
	if r.code != exitInvalid || !strings.Contains(r.stderr, specPath+" is there and was not written by reconciler fakes") {
		t.Fatalf("fakes over a foreign spec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, err := os.ReadFile(specPath); err != nil || string(got) != mine {
		t.Errorf("the foreign spec is now %q (%v)", got, err)
	}
}
