package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/reconcile"
)

func TestWaitLine(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	in := func(d time.Duration) time.Time { return now.Add(d) }
	for _, tc := range []struct {
		p    reconcile.Progress
		want string
	}{
		{reconcile.Progress{Name: "discord", Wait: reconcile.WaitExitAfterSIGTERM, PID: 123, Deadline: in(7200 * time.Millisecond)},
			"waiting for discord (pid 123) to exit after SIGTERM (8s left)"},
		{reconcile.Progress{Name: "discord", Wait: reconcile.WaitExitAfterSIGKILL, PID: 123, Deadline: in(5 * time.Second)},
			"waiting for discord (pid 123) to exit after SIGKILL (5s left)"},
		{reconcile.Progress{Name: "slack", Wait: reconcile.WaitReady, PID: 9, Deadline: in(30 * time.Second), Detail: "lookup slack.com: no such host"},
			"waiting for slack (pid 9) to become healthy (30s left); its transport: lookup slack.com: no such host"},
		{reconcile.Progress{Name: "slack", Wait: reconcile.WaitReady, Deadline: in(-time.Second)},
			"waiting for slack to become healthy (0s left)"},
		{reconcile.Progress{Name: "bot", Wait: reconcile.WaitLastOwnerExit, PID: 4, Deadline: in(10 * time.Second)},
			"waiting for the last owner of bot (pid 4) to exit (10s left)"},
		{reconcile.Progress{Name: "bot", Wait: reconcile.WaitExitRequested, PID: 4, Deadline: in(time.Second)},
			"waiting for bot (pid 4) to exit as its control request asks (1s left)"},
		{reconcile.Progress{Wait: reconcile.WaitPassLock, PID: 77, Detail: "reconciler --agent-dir /a", Deadline: in(30 * time.Second)},
			"waiting for another reconciler's pass to end: the pass lock is held by pid 77 (reconciler --agent-dir /a) (30s left)"},
		{reconcile.Progress{Wait: reconcile.WaitPassLock, Deadline: in(30 * time.Second)},
			"waiting for another reconciler's pass to end: the pass lock is held by a process the kernel does not name (30s left)"},
		{reconcile.Progress{Name: "bot"}, ""},
	} {
		if got := waitLine(tc.p, now); got != tc.want {
			t.Errorf("waitLine(%+v) =\n %q, want\n %q", tc.p, got, tc.want)
		}
	}
}

// A new line is for a new wait, process or word from the record; the
// clock counting down is not a change.
func TestWaitChange(t *testing.T) {
	base := reconcile.Progress{Name: "a", Wait: reconcile.WaitReady, PID: 1, Deadline: time.Unix(100, 0)}
	later := base
	later.Deadline = time.Unix(200, 0)
	detail := base
	detail.Detail = "connection refused"
	kill := base
	kill.Wait = reconcile.WaitExitAfterSIGKILL
	other := base
	other.PID = 2
	for _, tc := range []struct {
		what string
		prev *reconcile.Progress
		next reconcile.Progress
		want bool
	}{
		{"the first", nil, base, true},
		{"the same", &base, base, false},
		{"another deadline only", &base, later, false},
		{"the record says something", &base, detail, true},
		{"SIGTERM to SIGKILL", &base, kill, true},
		{"another process", &base, other, true},
	} {
		if got := waitChange(tc.prev, tc.next); got != tc.want {
			t.Errorf("%s: waitChange = %v, want %v", tc.what, got, tc.want)
		}
	}
}

func TestSpinnerLineFitsTheTerminal(t *testing.T) {
	now := time.Unix(1000, 0)
	active := []reconcile.Progress{
		{Name: "discord", Wait: reconcile.WaitReady, Deadline: now.Add(3 * time.Second)},
		{Wait: reconcile.WaitPassLock, Deadline: now.Add(20 * time.Second)},
	}
	if got := spinnerLine(active, 1, now, 200); got != "/ waiting: discord 3s, pass lock 20s" {
		t.Errorf("spinnerLine = %q", got)
	}
	if got := spinnerLine(active, 0, now, 12); len([]rune(got)) != 11 {
		t.Errorf("spinnerLine on a 12-column terminal = %q, want 11 runes", got)
	}
}

// Off a terminal: one line per change, no spinner and no terminal codes.
// On one: the same lines, the spinner's line cleared before each and at
// the end.
func TestWaitReporterLines(t *testing.T) {
	steps := []reconcile.Progress{
		{Name: "discord", Wait: reconcile.WaitExitAfterSIGTERM, PID: 1, Deadline: time.Now().Add(time.Hour)},
		{Name: "discord", Wait: reconcile.WaitExitAfterSIGTERM, PID: 1, Deadline: time.Now().Add(time.Hour)},
		{Name: "discord", Wait: reconcile.WaitExitAfterSIGKILL, PID: 1, Deadline: time.Now().Add(time.Hour)},
		{Name: "discord"},
	}
	var plain bytes.Buffer
	r := startWaitReporter(&plain, false, 0)
	for _, p := range steps {
		r.Report(p)
	}
	r.Close()
	lines := strings.Split(strings.TrimSuffix(plain.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "after SIGTERM") || !strings.Contains(lines[1], "after SIGKILL") || strings.Contains(plain.String(), "\x1b") {
		t.Errorf("off a terminal:\n%q", plain.String())
	}

	var tty bytes.Buffer
	r = startWaitReporter(&tty, true, 80)
	for _, p := range steps[:3] {
		r.Report(p)
	}
	r.Close()
	out := tty.String()
	if strings.Count(out, "after SIGTERM") < 1 || !strings.Contains(out, "after SIGKILL") || !strings.Contains(out, "waiting: discord") {
		t.Errorf("on a terminal: no lines or no spinner:\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("on a terminal the spinner line is not cleared at the end:\n%q", out)
	}
}
