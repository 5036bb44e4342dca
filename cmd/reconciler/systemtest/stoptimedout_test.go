package systemtest

import (
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

// A stop without --force never ends in SIGKILL, also with a loop running:
// the daemon that ignores its SIGTERM (stopped here) is reported, exit 1,
// and the loop's pass after the stop leaves it running, held, with reason
// StopTimedOut, though the spec's graceful timeout is short. stop --force
// ends it.
func TestStopWithoutForceIsNeverEscalatedByTheLoop(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1, graceful: "300ms"})
	loop := e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseRunning && d.Converged
	})
	slack := e.state("slack")
	if err := syscall.Kill(slack.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(slack.PID, syscall.SIGCONT) })
	base := []string{"--agent-dir", e.agentDir}
	r := runBinary(t, e.env, append([]string{"stop", "slack", "--graceful-timeout", "300ms"}, base...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "rerun with --force") {
		t.Fatalf("stop of a stuck daemon: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "left running") {
		t.Errorf("stop of a stuck daemon does not say it is left running: %q", r.stdout)
	}
	// The loop's own pass over the held name (its phase log), not the
	// command's answer, is what must say StopTimedOut.
	var reason any
	loop.logs.waitLog(t, "the loop's pass over the held slack", func(l []map[string]any) bool {
		for _, m := range l {
			if m["msg"] == "daemon phase" && m["name"] == "slack" && (m["reason"] == reconcile.ReasonStopTimedOut || m["phase"] == string(reconcile.PhaseHeld)) {
				reason = m["reason"]
				return true
			}
		}
		return false
	})
	if reason != reconcile.ReasonStopTimedOut {
		t.Errorf("the loop's pass after the stop says %v, want %s", reason, reconcile.ReasonStopTimedOut)
	}
	if !canaryAlivePID(t, slack.PID) {
		t.Fatal("the loop killed a daemon held by a stop without --force")
	}
	if st := e.state("slack"); st.OwnerID != slack.OwnerID || st.StoppedAt != nil {
		t.Errorf("after the timed-out stop: %+v, want the same owner, still running", st)
	}
	exited := watchExit(t, slack)
	r = runBinary(t, e.env, append([]string{"stop", "slack", "--force", "--graceful-timeout", "300ms", "--kill-timeout", "2s"}, base...)...)
	if r.code != 0 {
		t.Errorf("stop --force: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	<-exited
	e.waitStatus("slack held", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseHeld && d.Converged
	})
}
