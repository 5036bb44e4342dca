package daemonproto

import (
	"os/exec"
	"testing"
)

// Each exit code means one thing: a code shared by two outcomes would make
// the daemon's log and the reconciler's messages lie about one of them.
func TestExitCodesAreDistinctAndExplained(t *testing.T) {
	codes := []int{ExitStopped, ExitFailed, ExitUsage, ExitHeld, ExitLost, ExitTerminal}
	seen := map[int]bool{}
	meanings := map[string]int{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("exit code %d is used twice", c)
		}
		seen[c] = true
		m := ExitMeaning(c)
		if prev, ok := meanings[m]; ok {
			t.Errorf("exit codes %d and %d both mean %q", prev, c, m)
		}
		meanings[m] = c
		if m == ExitMeaning(99) {
			t.Errorf("exit code %d has no meaning", c)
		}
	}
}

// A real child's end is read as its parent saw it: the code, or the signal
// by its name, never a made-up code.
func TestExitOf(t *testing.T) {
	run := func(t *testing.T, script string) Exit {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		_ = cmd.Run()
		return ExitOf(cmd.ProcessState)
	}
	cases := []struct {
		script string
		want   Exit
		text   string
	}{
		{"exit 0", Exit{Code: 0}, "exited with code 0 (stopped on request)"},
		{"exit 78", Exit{Code: 78}, "exited with code 78 (refused by the service for good)"},
		{"kill -9 $$", Exit{Code: -1, Signal: "SIGKILL"}, "killed by signal SIGKILL"},
		{"kill -TERM $$", Exit{Code: -1, Signal: "SIGTERM"}, "killed by signal SIGTERM"},
	}
	for _, c := range cases {
		got := run(t, c.script)
		if got != c.want || got.String() != c.text {
			t.Errorf("%q: %+v %q, want %+v %q", c.script, got, got, c.want, c.text)
		}
	}
	if got := ExitOf(nil); got.Code != -1 || got.Signal != "" {
		t.Errorf("ExitOf(nil) = %+v", got)
	}
}
