package systemtest

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
)

// statusJSON runs `status -o json` with env (added to the test's own
// environment, which has no tokens) and decodes it.
func (e *e2e) statusJSON(env []string, names ...string) (reconcile.Status, result) {
	e.t.Helper()
	r := runBinary(e.t.(*testing.T), env, append(append([]string{"status", "-o", "json"}, names...), "--agent-dir", e.agentDir)...)
	var st reconcile.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		e.t.Fatalf("status -o json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return st, r
}

func specValidCondition(d reconcile.DaemonStatus) string {
	if c := meta.FindStatusCondition(d.Conditions, reconcile.ConditionSpecValid); c != nil {
		return string(c.Status)
	}
	return "missing"
}

// The blocker of issue 12: a loop runs with the bots' tokens in its
// environment, and an operator's shell has none of them, or other values.
// Every command asks the loop: status is the loop's (spec valid, Ready),
// restart runs the replacement with the loop's token (the fake accepts
// only that one), stop holds the name, start lets go of it.
func TestLocalAPIServesAShellWithoutTokens(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.startLoop()
	e.waitStatus("both running", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	noTokens := []string(nil)
	wrongToken := []string{"E2E_DISCORD_TOKEN=discord-WRONG-token"}
	base := []string{"--agent-dir", e.agentDir}

	for _, env := range [][]string{noTokens, wrongToken} {
		st, r := e.statusJSON(env)
		if r.code != 0 || !st.SpecValid || len(st.SpecErrors) > 0 {
			t.Errorf("status from a shell with %v: exit %d, specValid %v %v\n%s", env, r.code, st.SpecValid, st.SpecErrors, r.stderr)
		}
		for _, d := range st.Daemons {
			if specValidCondition(d) != "True" || !meta.IsStatusConditionTrue(d.Conditions, reconcile.ConditionReady) {
				t.Errorf("%s: SpecValid %s, Ready %v; want both True", d.Name, specValidCondition(d), meta.FindStatusCondition(d.Conditions, reconcile.ConditionReady))
			}
		}
		if strings.Contains(r.stderr, "acting directly") {
			t.Errorf("status acted directly with a loop running: %s", r.stderr)
		}
	}
	table := runBinary(t, noTokens, append([]string{"status"}, base...)...)
	if table.code != 0 || strings.Contains(table.stdout, "spec invalid") {
		t.Errorf("status table: exit %d\n%s%s", table.code, table.stdout, table.stderr)
	}
	// The read-only commands judge names and conditions by the loop's view
	// too: from this shell the spec would be invalid.
	desc := runBinary(t, noTokens, append([]string{"describe", "discord"}, base...)...)
	if desc.code != 0 || !regexp.MustCompile(`SpecValid\s+True`).MatchString(desc.stdout) || strings.Contains(desc.stderr, "acting directly") {
		t.Errorf("describe from a shell without tokens: exit %d\n%s%s", desc.code, desc.stdout, desc.stderr)
	}
	for _, args := range [][]string{{"events", "discord"}, {"logs", "discord", "--tail", "1"}} {
		if r := runBinary(t, noTokens, append(args, base...)...); r.code != 0 || strings.Contains(r.stderr, "acting directly") {
			t.Errorf("%v from a shell without tokens: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}

	old := e.state("discord")
	r := runBinary(t, wrongToken, append([]string{"restart", "discord"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "restarted discord daemon") {
		t.Fatalf("restart from a shell with another token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cur := e.state("discord")
	if cur.OwnerID == old.OwnerID || !healthy(ownershipRecord(e, "discord")) {
		t.Errorf("restart did not bring up a healthy new owner: %+v", cur)
	}
	snap := e.f.discord.Snapshot()
	if wrong := snap.Tokens["discord-WRONG-token"]; wrong.Identifies > 0 {
		t.Errorf("a daemon connected with the shell's token (%d identifies)", wrong.Identifies)
	}
	if live := snap.Tokens[discordToken].Live; live != 1 {
		t.Errorf("%d live sessions with the loop's token, want 1", live)
	}
	assertNoToken(t, e.agentDir, cur.PID)

	// stop holds it (the loop does not start it again), start lets go.
	exited := watchExit(t, cur)
	if r := runBinary(t, noTokens, append([]string{"stop", "discord"}, base...)...); r.code != 0 || !strings.Contains(r.stdout, "held stopped until reconciler start discord") {
		t.Fatalf("stop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	<-exited
	e.waitStatus("discord held", func(s *reconcile.Status) bool {
		d, _ := daemonStatus(s, "discord")
		return d.Phase == reconcile.PhaseHeld && d.Converged
	})
	if st := e.state("discord"); st.OwnerID != cur.OwnerID || st.StoppedAt == nil {
		t.Fatalf("a held name was started again: %+v", st)
	}
	if r := runBinary(t, noTokens, append([]string{"start", "discord"}, base...)...); r.code != 0 || !strings.Contains(r.stdout, "started discord daemon") {
		t.Fatalf("start: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if st := e.state("discord"); st.OwnerID == cur.OwnerID || !healthy(ownershipRecord(e, "discord")) {
		t.Errorf("start did not bring up a healthy new owner: %+v", st)
	}

	// An unknown name is the loop's usage error: exit 2, nothing touched.
	if r := runBinary(t, noTokens, append([]string{"restart", "discord", "slakc"}, base...)...); r.code != 2 || !strings.Contains(r.stderr, `unknown daemon "slakc"`) {
		t.Errorf("restart of an unknown name: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// gc through the loop: the same report as alone.
	if r := runBinary(t, noTokens, append([]string{"gc", "-o", "json"}, base...)...); r.code != 0 || strings.Contains(r.stderr, "acting directly") || !strings.Contains(r.stdout, `"summary"`) {
		t.Errorf("gc: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// stop and start take several names, and --all.
func TestStopStartAll(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.startLoop()
	e.waitStatus("both running", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	base := []string{"--agent-dir", e.agentDir}
	r := runBinary(t, nil, append([]string{"stop", "--all", "-o", "json"}, base...)...)
	var results []reconcile.OperateResult
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil || r.code != 0 || len(results) != 2 {
		t.Fatalf("stop --all: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	for i, name := range []string{"discord", "slack"} {
		if results[i].Name != name || !results[i].OK {
			t.Errorf("result %d: %+v, want %s stopped", i, results[i], name)
		}
	}
	e.waitStatus("both held", func(s *reconcile.Status) bool {
		for _, n := range []string{"discord", "slack"} {
			if d, _ := daemonStatus(s, n); d.Phase != reconcile.PhaseHeld {
				return false
			}
		}
		return true
	})
	if r := runBinary(t, nil, append([]string{"start", "slack", "discord"}, base...)...); r.code != 0 || !strings.Contains(r.stdout, "started slack daemon") || !strings.Contains(r.stdout, "started discord daemon") {
		t.Fatalf("start slack discord: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"stop"}, {"stop", "slack", "--all"}, {"restart", "--all"}} {
		if r := runBinary(t, nil, append(args, base...)...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}

// With no loop answering, a command acts itself and says so, naming the
// socket; status -o json then reads the spec as this shell does, top and
// daemons alike.
func TestNoLoopActsDirectly(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	e.mustConverge()
	sock := localapi.SocketPath(e.agentDir)
	st, r := e.statusJSON(nil) // no tokens: the spec does not resolve here
	if want := "no loop answering on " + sock + ": acting directly\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if st.SpecValid {
		t.Fatalf("status read the spec as valid without its tokens")
	}
	for _, d := range st.Daemons {
		if specValidCondition(d) != "False" {
			t.Errorf("%s: SpecValid %s while the top says specValid false", d.Name, specValidCondition(d))
		}
	}
	// Alone, a shell without the tokens cannot restart, and is told why.
	r = runBinary(t, nil, "restart", "slack", "--agent-dir", e.agentDir)
	if r.code != 1 || !strings.Contains(r.stdout, "slack is not in the spec; nothing to restart it as (the spec is invalid as read here") {
		t.Errorf("restart without a loop or tokens: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A restart acts with this shell's environment, which has the tokens.
	r = runBinary(t, e.env, "restart", "slack", "--agent-dir", e.agentDir)
	if r.code != 0 || !strings.Contains(r.stderr, "no loop answering on "+sock+": acting directly") {
		t.Errorf("restart without a loop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Acting alone, stop and start leave status.json saying what they did:
	// no loop comes by to write it.
	for _, step := range []struct {
		op    string
		phase reconcile.Phase
	}{{"stop", reconcile.PhaseHeld}, {"start", reconcile.PhaseRunning}} {
		if r := runBinary(t, e.env, step.op, "slack", "--agent-dir", e.agentDir); r.code != 0 {
			t.Fatalf("%s without a loop: exit %d\n%s%s", step.op, r.code, r.stdout, r.stderr)
		}
		st, err := reconcile.ReadStatus(e.agentDir)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := daemonStatus(st, "slack"); d.Phase != step.phase || !d.Converged {
			t.Errorf("after %s, status.json says %s (converged %v) %s: %s, want %s", step.op, d.Phase, d.Converged, d.Reason, d.Message, step.phase)
		}
	}
}

// refusedLoop runs a loop that must refuse to start: its exit, or a failed
// test if it still runs at the deadline.
func (e *e2e) refusedLoop() result {
	e.t.Helper()
	p := e.startLoop()
	select {
	case <-p.done:
	case <-time.After(e2eDeadline):
		e.t.Fatalf("the loop did not refuse to start:\n%s", p.logs.String())
	}
	return result{code: p.cmd.ProcessState.ExitCode(), stderr: p.logs.String()}
}

// A socket no one answers on (a loop killed with -9) is replaced.
func TestLoopReplacesStaleSocket(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	sock := localapi.SocketPath(e.agentDir)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if r := runBinary(t, nil, "status", "--agent-dir", e.agentDir); !strings.Contains(r.stderr, "acting directly") {
		t.Fatalf("the stale socket answered: %s", r.stderr)
	}
	e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	// (A new socket may get the stale one's inode: it answering is the proof.)
	if cur, err := os.Lstat(sock); err != nil || cur.Mode().Type() != os.ModeSocket || cur.Mode().Perm() != 0o600 {
		t.Errorf("socket after the loop started: %v, %v; want a socket, 0600", cur, err)
	}
	if st, r := e.statusJSON(nil); r.code != 0 || !st.SpecValid || r.stderr != "" {
		t.Errorf("status through the new socket: exit %d, specValid %v, stderr %q", r.code, st.SpecValid, r.stderr)
	}
}

// Something that is not a socket at the socket's path is not the loop's to
// remove: the loop refuses to start, touches nothing, and leaves it as it
// was.
func TestLoopRefusesNonSocketAtSocketPath(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	sock := localapi.SocketPath(e.agentDir)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(e.agentDir, "elsewhere")
	if err := os.WriteFile(target, []byte("not ours"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind string
		make func() error
	}{
		{"a regular file", func() error { return os.WriteFile(sock, []byte("an operator's notes\n"), 0o640) }},
		{"a symlink", func() error { return os.Symlink(target, sock) }},
		{"a FIFO", func() error { return syscall.Mkfifo(sock, 0o600) }},
		{"a directory", func() error { return os.Mkdir(sock, 0o700) }},
	} {
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		before, err := os.Lstat(sock)
		if err != nil {
			t.Fatal(err)
		}
		var content []byte
		if before.Mode().IsRegular() {
			content, _ = os.ReadFile(sock)
		}
		r := e.refusedLoop()
		if r.code != 1 || !strings.Contains(r.stderr, sock+" is "+c.kind+", not a socket; it is left as it is") {
			t.Errorf("%s at the socket path: exit %d, stderr %q", c.kind, r.code, r.stderr)
		}
		after, err := os.Lstat(sock)
		if err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
			t.Errorf("%s was changed: %v -> %v (%v)", c.kind, before, after, err)
		}
		if before.Mode().IsRegular() {
			if now, _ := os.ReadFile(sock); !bytes.Equal(now, content) {
				t.Errorf("%s's content changed: %q -> %q", c.kind, content, now)
			}
		}
		if _, err := os.Lstat(e.paths("slack").Dir); err == nil {
			t.Errorf("with %s at the socket path, the loop touched the daemons", c.kind)
		}
		if err := os.Remove(sock); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "not ours" {
		t.Errorf("the symlink's target changed: %q, %v", data, err)
	}
}

// Two loops on one agent dir are an operator's mistake: the second says
// which loop runs and exits; the first keeps serving.
func TestSecondLoopRefused(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	first := e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	r := e.refusedLoop()
	if want := "another reconciler loop runs on this agent dir (pid " + itoa(first.cmd.Process.Pid) + ")"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("second loop: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, want)
	}
	if st, r := e.statusJSON(nil); r.code != 0 || !st.SpecValid || r.stderr != "" {
		t.Errorf("the first loop stopped answering: exit %d, stderr %q", r.code, r.stderr)
	}
	// Its clean shutdown removes the socket.
	first.stop()
	if _, err := os.Lstat(localapi.SocketPath(e.agentDir)); !os.IsNotExist(err) {
		t.Errorf("socket after the loop stopped: %v", err)
	}
}

// A loop whose socket is gone (removed under it) still runs: a command
// that finds no loop answering says so before it acts with this shell's
// environment, instead of only "no loop answering".
func TestActingDirectlyNamesARunningLoop(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	p := e.startLoop()
	e.waitStatus("slack running", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	if err := os.Remove(localapi.SocketPath(e.agentDir)); err != nil {
		t.Fatal(err)
	}
	_, r := e.statusJSON(e.env)
	want := "acting directly, though a reconciler loop (pid " + itoa(p.cmd.Process.Pid) + ") runs on this agent dir; this shell's environment is used, not the loop's"
	if r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("status with the loop's socket gone: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	p.stop()
}
