package systemtest

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

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/demo"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/redact"
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
	var agentDir string
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		// Its daemons outlive a demo killed this way, by design: a
		// failed run must not leave them running for the next.
		if agentDir != "" {
			(&e2e{t: t, agentDir: agentDir}).killAllDaemons()
		}
	})

	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	agentDirRe := regexp.MustCompile(`agent dir (\S+)`)
	readyRow := regexp.MustCompile(`^(discord|slack|telegram)\s+\S+\s+Running\s+Running\s+1\s+(\d+)\s+True`)
	postRow := regexp.MustCompile(`^(discord|slack|telegram)\s+(\S+)\s+│ (.*)$`)
	scripted := scriptedFirstLines()
	tryLines, sendLines := 0, 0
	pids := map[string]int{}
	posted := map[string]string{} // provider -> a scripted text it showed
	deadline := time.After(e2eDeadline)
	// The demo's two replies per bot: the authorized user's shown from
	// the inbox, the other user's shown as ignored.
	landedHead := regexp.MustCompile(`^demo: (discord|slack|telegram): landed in the inbox`)
	ignoredRow := regexp.MustCompile(`^demo: (discord|slack|telegram): ignored 1 reply from a user not in authorizedUserIds`)
	authorized := map[string]string{"discord": demo.AuthorizedDiscordUser, "slack": demo.AuthorizedSlackUser, "telegram": strconv.FormatInt(demo.AuthorizedTelegramUser.ID, 10)}
	landing := ""                // the provider whose inbox lines follow
	landed := map[string]bool{}  // provider -> its authorized reply shown from the inbox
	ignored := map[string]bool{} // provider -> the other reply shown as ignored
	for len(pids) < 3 || len(posted) < 3 || len(landed) < 3 || len(ignored) < 3 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("demo output ended before three Ready daemons, a post on each and their replies handled (ready %v, posted %v, landed %v, ignored %v)", pids, posted, landed, ignored)
			}
			checkNoToken(t, l)
			if m := postRow.FindStringSubmatch(l); m != nil && scripted[m[3]] {
				posted[m[1]] = m[3]
			}
			if strings.HasPrefix(l, "demo:   ") && strings.Contains(l, " send discord --session demo ") {
				sendLines++
			}
			if m := landedHead.FindStringSubmatch(l); m != nil {
				landing = m[1]
			} else if landing != "" && strings.HasPrefix(l, "demo:   ") {
				if f := strings.Split(strings.TrimPrefix(l, "demo:   "), "  "); len(f) == 4 && f[1] == demo.ReplySession && f[2] == authorized[landing] && f[3] == demo.AuthorizedReply {
					landed[landing] = true
				}
				if strings.Contains(l, demo.OtherReply) {
					t.Errorf("the other user's reply landed: %q", l)
				}
			} else {
				landing = ""
			}
			if m := ignoredRow.FindStringSubmatch(l); m != nil {
				ignored[m[1]] = true
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
			t.Fatalf("demo did not show three Ready daemons, a scripted post on each and their replies handled within %v (ready %v, posted %v, landed %v, ignored %v)", e2eDeadline, pids, posted, landed, ignored)
		}
	}
	if agentDir == "" || !strings.HasPrefix(filepath.Base(agentDir), "reconciler-demo-") {
		t.Fatalf("agent dir not announced: %q", agentDir)
	}
	if tryLines == 0 {
		t.Error("the demo does not say what to try from another shell")
	}
	if sendLines == 0 {
		t.Error("the demo does not say how to post to a session of one's own")
	}
	if err := end(cmd, stdout); err != nil {
		t.Fatal(err)
	}
	go func() {
		for l := range lines { // drain, so the demo never blocks on its output
			checkNoToken(t, l)
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

// scriptedFirstLines is the first line of every text the demo's agent
// writes, as a post line shows it: with the relay's mark for its level.
func scriptedFirstLines() map[string]bool {
	out := map[string]bool{}
	for _, m := range demo.Script() {
		first, _, _ := strings.Cut(m.Text, "\n")
		if first == "" {
			continue
		}
		switch m.Level {
		case bus.LevelAction:
			first = "▶ " + first
		case bus.LevelError:
			first = "⚠ " + first
		}
		out[first] = true
	}
	return out
}

// checkNoToken fails the test if line holds one of the demo's tokens or
// anything else token-shaped.
func checkNoToken(t *testing.T, line string) {
	t.Helper()
	for _, tok := range demoTokens() {
		if strings.Contains(line, tok) {
			t.Errorf("demo output holds a token: %q", strings.ReplaceAll(line, tok, "[TOKEN]"))
		}
	}
	if redact.Content(line, "") != line {
		t.Errorf("demo output holds something token-shaped: %q", redact.Content(line, ""))
	}
}

// demoTokens are the values of the demo's made-up tokens.
func demoTokens() []string {
	var out []string
	for _, t := range demo.Tokens() {
		out = append(out, t.Value)
	}
	return out
}
