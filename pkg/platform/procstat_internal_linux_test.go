package platform

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	tail := " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 98231 20 21 22"
	for _, tc := range []struct {
		line      string
		state     byte
		startTick string
	}{
		{"42 (sleep) S" + tail, 'S', "98231"},
		{"42 (a) b (c) S" + tail, 'S', "98231"},
		{"42 (x) 1 2 3 (y) Z" + tail, 'Z', "98231"},
		{"42 ()) R" + tail, 'R', "98231"},
		{"42 (new\nline) S" + tail + "\n", 'S', "98231"},
		{"42 ( ) D" + tail, 'D', "98231"},
	} {
		st, err := parseProcStat([]byte(tc.line))
		if err != nil {
			t.Errorf("parseProcStat(%q): %v", tc.line, err)
			continue
		}
		if st.state != tc.state || st.startTicks != tc.startTick {
			t.Errorf("parseProcStat(%q) = %c %s, want %c %s", tc.line, st.state, st.startTicks, tc.state, tc.startTick)
		}
	}
	for _, bad := range []string{
		"",
		"42 sleep S" + tail,
		"42 (sleep) S 1 2 3",
		"42 (sleep)S" + tail,
		"42 (sleep) S" + strings.Replace(tail, "98231", "-1", 1),
		"42 (sleep) S" + strings.Replace(tail, "98231", "", 1),
		"42 (sleep) SS" + tail,
	} {
		if st, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("parseProcStat(%q) = %+v, want an error", bad, st)
		}
	}
}

// Kernels without a usable poller on pidfds fall back to poll(2) in slices;
// exercise that path directly.
func TestWaitPollingFallback(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	p, err := OpenProcess(cmd.Process.Pid, mustIncarnation(t, cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f, err := p.dupPidfd()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := p.waitPolling(ctx, f); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waitPolling on a live process = %v, want DeadlineExceeded", err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.waitPolling(ctx, f); err != nil {
		t.Fatalf("waitPolling after SIGKILL = %v, want nil", err)
	}
}

func mustIncarnation(t *testing.T, pid int) string {
	t.Helper()
	inc, err := Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	return inc
}
