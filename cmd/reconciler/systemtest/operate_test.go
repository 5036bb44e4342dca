package systemtest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

func TestStopAndRestart(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	base := []string{"--agent-dir", e.agentDir}

	// A cooperative daemon stops on SIGTERM and is held stopped, whatever
	// the spec says; the warning says until when.
	slack := e.state("slack")
	r := runBinary(t, e.env, append([]string{"stop", "slack", "-o", "json"}, base...)...)
	if r.code != 0 {
		t.Fatalf("stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stop -o json: %v\n%s", err, r.stdout)
	}
	var keys []string
	for k := range res {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if strings.Join(keys, ",") != "action,after,before,message,name,ok,warnings" {
		t.Errorf("json keys = %v", keys)
	}
	if res["ok"] != true || res["action"] != "stop" || res["name"] != "slack" || !strings.Contains(r.stdout, "held stopped until reconciler start slack") {
		t.Errorf("stop result = %s", r.stdout)
	}
	if st := e.state("slack"); st.OwnerID != slack.OwnerID || st.StoppedAt == nil {
		t.Errorf("after stop: %+v, want the same owner released", st)
	}

	// A daemon that ignores SIGTERM (stopped) is refused without --force...
	discord := e.state("discord")
	if err := syscall.Kill(discord.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, e.env, append([]string{"stop", "discord", "--graceful-timeout", "300ms"}, base...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "did not exit within 300ms; rerun with --force") {
		t.Errorf("stop of a stuck daemon: exit %d, %q", r.code, r.stdout)
	}
	if alive := canaryAlivePID(t, discord.PID); !alive {
		t.Fatal("killed without --force")
	}
	// ...and killed with it.
	exited := watchExit(t, discord)
	r = runBinary(t, e.env, append([]string{"stop", "discord", "--force", "--graceful-timeout", "300ms", "--kill-timeout", "2s"}, base...)...)
	if r.code != 0 {
		t.Errorf("stop --force: exit %d, %q", r.code, r.stdout)
	}
	<-exited

	// A held name is not restarted: start lets go of the hold and brings
	// it back; then restart replaces it.
	r = runBinary(t, e.env, append([]string{"restart", "discord"}, base...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "held stopped by reconciler stop; run reconciler start discord") {
		t.Errorf("restart of a held name: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, e.env, append([]string{"start", "discord"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "started discord daemon") {
		t.Errorf("start: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	started := e.state("discord")
	if started.OwnerID == discord.OwnerID || !healthy(ownershipRecord(e, "discord")) {
		t.Errorf("start did not bring up a new owner: %+v", started)
	}
	r = runBinary(t, e.env, append([]string{"restart", "discord"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "restarted discord daemon") {
		t.Errorf("restart: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	st := e.state("discord")
	if st.OwnerID == started.OwnerID || !healthy(ownershipRecord(e, "discord")) {
		t.Errorf("restart did not replace the owner: %+v", st)
	}
	// A daemon restarted from the command line inherits no token either.
	assertNoToken(t, e.agentDir, st.PID)
}

func TestStopRefusesNewerOwner(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	cfg := e.f.config("discord", "discord", 9)
	d := startDaemon(t, e.agentDir, cfg, "newer-owner")
	waitRecord(t, e.paths("discord"), "healthy", healthy)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 5})
	for _, cmd := range []string{"stop", "restart"} {
		r := runBinary(t, e.env, cmd, "discord", "--agent-dir", e.agentDir)
		if want := "discord daemon is newer than this controller; upgrade this controller before " + cmd; r.code != 1 || !strings.Contains(r.stdout, want) {
			t.Errorf("%s: exit %d, %q; want 1 and %q", cmd, r.code, r.stdout, want)
		}
	}
	select {
	case <-d.done:
		t.Fatal("the newer owner was stopped")
	default:
	}
}

// stop holds a name stopped, like systemctl stop: the running loop does not
// start it again though the spec says Running, and shows it Held and
// converged; start lets go of the hold and brings it back.
func TestStopHoldsTheNameStoppedUntilStart(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseRunning && d.Converged
	})
	old := e.state("slack")
	base := []string{"--agent-dir", e.agentDir}
	if r := runBinary(t, e.env, append([]string{"stop", "slack"}, base...)...); r.code != 0 {
		t.Fatalf("stop: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	// The loop's pass after the release (woken by it) writes this.
	e.waitStatus("slack held", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseHeld && d.Reason == reconcile.ReasonOperatorStopped && d.Converged
	})
	if st := e.state("slack"); st.OwnerID != old.OwnerID || st.StoppedAt == nil {
		t.Fatalf("a held name was started again: %+v", st)
	}
	if r := runBinary(t, e.env, append([]string{"start", "slack"}, base...)...); r.code != 0 {
		t.Fatalf("start: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	e.waitStatus("slack running again", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "slack")
		return d.Phase == reconcile.PhaseRunning && d.Converged && d.OwnerID != old.OwnerID
	})
}

// A name nothing knows (not in the spec, no daemon dir) is an error, exit
// 2, for every command that takes one: a typo must not read as "no running
// daemon" or an empty table.
func TestUnknownNameIsAnError(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	base := []string{"--agent-dir", e.agentDir}
	for _, args := range [][]string{{"stop", "slakc"}, {"start", "slakc"}, {"restart", "slakc"}, {"status", "slakc"}, {"status", "slack", "slakc"}} {
		r := runBinary(t, e.env, append(args, base...)...)
		if r.code != 2 || !strings.Contains(r.stderr, `unknown daemon "slakc"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming the unknown daemon", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(e.agentDir, "sdk", "daemons", "slakc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an unknown name left a daemon dir: %v", err)
	}
}
