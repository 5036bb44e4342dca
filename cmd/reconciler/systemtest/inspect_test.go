package systemtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A daemon killed with SIGKILL under a running loop: `events` shows its
// exit with the signal and the respawn after it, `events -f` saw them as
// they happened, `describe` shows conditions, record, events and the log's
// tail, and `logs --tail 5` renders five lines. The loop logs the exit.
func TestEventsDescribeLogsAfterAKill(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	loop := e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })

	// Followed from before the kill, as an operator's second shell would.
	follow := exec.Command(binary, "events", "discord", "-f", "-o", "json", "--agent-dir", e.agentDir)
	follow.Env = e.env
	followed := newLogBuffer()
	follow.Stdout, follow.Stderr = followed, followed
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = follow.Process.Signal(syscall.SIGTERM)
		_ = follow.Wait()
	}()
	followed.waitLog(t, "the history's first event", func(lines []map[string]any) bool { return len(lines) > 0 })

	first := e.state("discord")
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.waitStatus("respawned", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Converged && d.OwnerID != first.OwnerID && d.Restarts >= 1
	})
	second := e.state("discord")
	exitMsg := fmt.Sprintf("pid %d killed by signal SIGKILL", first.PID)

	// events, as JSON lines: the exit (a Warning, with the signal), then
	// the respawn of the new owner.
	r := runBinary(t, e.env, "events", "discord", "-o", "json", "--agent-dir", e.agentDir)
	if r.code != 0 {
		t.Fatalf("events: exit %d: %s", r.code, r.stderr)
	}
	var evs []events.Event
	for line := range strings.Lines(r.stdout) {
		var ev events.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("events -o json line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	exitAt, spawnAt := -1, -1
	for i, ev := range evs {
		switch {
		case ev.Reason == reconcile.EventExited && strings.HasPrefix(ev.Message, exitMsg):
			if ev.Type != events.TypeWarning || ev.Name != "discord" {
				t.Errorf("exit event %+v", ev)
			}
			exitAt = i
		case ev.Reason == reconcile.EventSpawned && strings.Contains(ev.Message, fmt.Sprintf("pid %d ", second.PID)):
			spawnAt = i
		}
		if i > 0 && ev.Time.Before(evs[i-1].Time) {
			t.Errorf("events out of time order at %d: %v before %v", i, ev.Time, evs[i-1].Time)
		}
	}
	if exitAt < 0 || spawnAt < exitAt {
		t.Fatalf("want the exit (%q) and then the respawn of pid %d; got exit at %d, spawn at %d:\n%s", exitMsg, second.PID, exitAt, spawnAt, r.stdout)
	}

	// The same as text: a header and a row per event.
	r = runBinary(t, e.env, "events", "discord", "--agent-dir", e.agentDir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "TIME ") || !strings.Contains(r.stdout, "Warning  discord           Exited") || !strings.Contains(r.stdout, exitMsg) {
		t.Errorf("events text: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The follower saw the exit as it happened.
	followed.waitLog(t, "the followed exit", func(lines []map[string]any) bool {
		for _, m := range lines {
			if m["reason"] == reconcile.EventExited && strings.HasPrefix(fmt.Sprint(m["message"]), exitMsg) {
				return true
			}
		}
		return false
	})

	// describe: every section, with the new owner's record and the exit.
	r = runBinary(t, e.env, "describe", "discord", "--agent-dir", e.agentDir)
	if r.code != 0 {
		t.Fatalf("describe: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Name:", "Phase:", "Running (Ready)", "Restarts:",
		"Last exit:", exitMsg,
		"Conditions:", "Ready True Ready", "Degraded False", "SpecValid True",
		"Record (state.json):", "Owner ID:", second.OwnerID, fmt.Sprintf("PID: %d", second.PID), "Heartbeat:", "Transport: healthy",
		"Events:", "Exited", "Spawned",
		"daemon.log (last 10 lines",
	} {
		if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
			t.Errorf("describe lacks %q:\n%s", want, r.stdout)
		}
	}

	// logs --tail 5: the file's last five lines (all, if it has fewer),
	// rendered, none raw JSON; --tail 2 two of them.
	raw, err := os.ReadFile(filepath.Join(e.paths("discord").Dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	total := strings.Count(string(raw), "\n")
	rendered := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [A-Z]+ +\S`)
	for _, tail := range []int{5, 2} {
		r = runBinary(t, e.env, "logs", "discord", "--tail", itoa(tail), "--agent-dir", e.agentDir)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || len(lines) != min(tail, total) {
			t.Fatalf("logs --tail %d of %d lines: exit %d, %d lines:\n%s%s", tail, total, r.code, len(lines), r.stdout, r.stderr)
		}
		for _, l := range lines {
			if !rendered.MatchString(l) || strings.Contains(l, "daemon=discord") {
				t.Errorf("line not rendered: %q", l)
			}
		}
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("pid=%d", second.PID)) {
		t.Errorf("the last lines are not the new daemon's:\n%s", r.stdout)
	}

	// An unknown name is a usage error for each.
	for _, args := range [][]string{{"events", "discrod"}, {"describe", "discord", "discrod"}, {"logs", "discrod"}} {
		if r := runBinary(t, e.env, append(args, "--agent-dir", e.agentDir)...); r.code != 2 || !strings.Contains(r.stderr, `"discrod"`) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the unknown name", args, r.code, r.stderr)
		}
	}

	// The loop logged how its child ended.
	loop.logs.waitLog(t, "daemon exited with SIGKILL", func(lines []map[string]any) bool {
		for _, m := range lines {
			if m["msg"] == "daemon exited" && m["signal"] == "SIGKILL" && m["pid"] == float64(first.PID) {
				return true
			}
		}
		return false
	})
}

// A daemon started by a previous loop is not the new loop's child: when it
// is killed, the new loop says what it knows (its record) and makes up no
// code or signal.
func TestExitOfAPreviousLoopsDaemon(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	first := e.startLoop()
	e.waitStatus("ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	first.stop()
	old := e.state("discord")
	// The new loop's look at the healthy daemon ends with a warm
	// replacement beside it: then it has attached.
	second := e.startLoop()
	second.logs.waitLog(t, "the new loop attached", func(lines []map[string]any) bool {
		for _, m := range lines {
			if m["msg"] == "warm replacement standing by" {
				return true
			}
		}
		return false
	})
	if cur := e.state("discord"); cur.OwnerID != old.OwnerID {
		t.Fatalf("the new loop replaced the daemon (%s, was %s)", cur.OwnerID, old.OwnerID)
	}
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st := e.waitStatus("respawned", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Converged && d.OwnerID != old.OwnerID
	})
	d, _ := daemonStatus(st, "discord")
	want := fmt.Sprintf("pid %d exited; how is not known (it is not this reconciler's child); it did not release its record", old.PID)
	if ex := d.LastExit; ex == nil || ex.Message != want || ex.Code != nil || ex.Signal != "" {
		t.Errorf("lastExit %+v, want %q and no code or signal", ex, want)
	}
	r := runBinary(t, e.env, "events", "discord", "--agent-dir", e.agentDir)
	if r.code != 0 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, fmt.Sprintf("pid %d killed", old.PID)) {
		t.Errorf("events: exit %d, want %q:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}
