package systemtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchLines runs `status -w` and hands each line of its stdout to the test.
type watchLines struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *logBuffer
	done   chan struct{} // closed once it exited; err is how
	err    error
}

func startWatch(t *testing.T, e *e2e, args ...string) *watchLines {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"status", "-w", "--agent-dir", e.agentDir}, args...)...)
	cmd.Env = e.env
	w := &watchLines{cmd: cmd, lines: make(chan string, 1024), stderr: newLogBuffer(), done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, w.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	go func() {
		w.err = cmd.Wait()
		pw.Close()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("status -w stderr:\n%s", w.stderr.String())
		}
	})
	return w
}

// waitText waits, woken by each write, until b holds s.
func (b *logBuffer) waitText(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(e2eDeadline)
	for !strings.Contains(b.String(), s) {
		select {
		case <-b.wrote:
		case <-deadline:
			t.Fatalf("%q not written before the deadline; got:\n%s", s, b.String())
		}
	}
}

// next waits for the next line for which keep holds, failing past the
// deadline; every line read is passed to seen first.
func (w *watchLines) next(t *testing.T, what string, seen func(string), keep func([]string) bool) []string {
	t.Helper()
	deadline := time.After(e2eDeadline)
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				t.Fatalf("status -w ended before %s", what)
			}
			seen(l)
			if f := strings.Fields(l); keep(f) {
				return f
			}
		case <-deadline:
			t.Fatalf("status -w: %s not printed before the deadline", what)
		}
	}
}

// status -w behaves as kubectl get -w: it starts before the agent dir
// exists and says what it waits for, prints the header once, then only
// the rows that change (a daemon killed -9 is a changed row), and exits 0
// on SIGINT.
func TestStatusWatchFollowsChanges(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.agentDir = filepath.Join(e.agentDir, "later", "agent") // not there yet
	e.specPath = filepath.Join(e.agentDir, "daemons.yaml")
	w := startWatch(t, e)

	headers := 0
	var printed []string
	seen := func(l string) {
		printed = append(printed, l)
		if strings.HasPrefix(l, "NAME") {
			headers++
		}
	}
	w.next(t, "the header", seen, func(f []string) bool { return len(f) > 0 && f[0] == "NAME" })
	// Said once, on stderr, before anything exists to watch.
	w.stderr.waitText(t, "waiting for agent dir "+e.agentDir+" to appear")

	if err := os.MkdirAll(e.agentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	e.writeSpec(bothBots...)
	e.startLoop()
	up := map[string]bool{}
	w.next(t, "both daemons Running and Ready", seen, func(f []string) bool {
		if len(f) == 10 && f[3] == "Running" && f[6] == "True" {
			up[f[0]] = true
		}
		return up["discord"] && up["slack"]
	})

	killed := e.state("slack")
	if err := syscall.Kill(killed.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	from := len(printed)
	w.next(t, "slack's row changed after kill -9", seen, func(f []string) bool {
		return len(f) == 10 && f[0] == "slack" && f[5] != strconv.Itoa(killed.PID)
	})
	// Only discord's row can be a repeat: the spec's notes ("spec valid
	// again", after a look that came between the agent dir and its spec)
	// are no rows, and may come late.
	for _, l := range printed[from:] {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "discord" {
			t.Errorf("a row that did not change was printed again: %q", l)
		}
	}
	if headers != 1 {
		t.Errorf("the header was printed %d times, want once:\n%s", headers, strings.Join(printed, "\n"))
	}
	if n := strings.Count(w.stderr.String(), "waiting for"); n != 1 {
		t.Errorf("said what it waits for %d times, want once:\n%s", n, w.stderr.String())
	}

	if err := w.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	case <-time.After(e2eDeadline):
		t.Fatal("status -w did not end on SIGINT")
	}
	if err := w.err; err != nil {
		t.Errorf("status -w on SIGINT: %v, want exit 0", err)
	}
}
