package reconcile

import (
	"context"
	"errors"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

// helperEnv makes the test binary a stand-in daemon: started with a
// daemon's command line, it lives until its stdin closes.
const helperEnv = "RECONCILE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "handover":
		os.Exit(runHandover())
	case "forever":
		select {} // until killed: a successor outlives its predecessor
	case "config":
		os.Exit(runConfigHelper())
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	default:
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
}

// startStandIn starts a process whose command line is that of the daemon
// of p running as ownerID, and returns its record.
func startStandIn(t *testing.T, p ownership.Paths, ownerID string) ownership.State {
	t.Helper()
	return startStandInAs(t, p, ownerID, "1")
}

// startStandInAs is startStandIn in the given helper mode.
func startStandInAs(t *testing.T, p ownership.Paths, ownerID, mode string) ownership.State {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, daemonproto.Args(ownership.ClaimOf(p, ownerID), 1)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if mode == "stubborn" {
		// Ready once it ignores SIGTERM.
		if _, err := fmt.Fscanln(stdout, new(string)); err != nil {
			t.Fatalf("stand-in not ready: %v", err)
		}
	}
	inc, err := platform.Incarnation(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return standInRecord(cmd.Process.Pid, inc, ownerID, 1)
}

// standInIdentity is the identity every stand-in record runs.
const standInIdentity = "0123456789abcdef"

// standInRecord is a healthy slack record of pid at generation gen.
func standInRecord(pid int, inc, ownerID string, gen spec.Generation) ownership.State {
	now := time.Now().UnixMilli()
	return ownership.State{Version: 1, Kind: "slack", PID: pid, OwnerID: ownerID, Identity: standInIdentity,
		Incarnation: inc, StartedAt: now, HeartbeatAt: now, TransportHealthy: true, Generation: gen.Opt()}
}

// The owner changed between the decision and the stop: nothing is sent,
// and the error says so instead of "still alive after SIGTERM and SIGKILL".
func TestStopOfChangedOwnerSendsNothingAndSaysSo(t *testing.T) {
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	decided := startStandIn(t, p, "owner-decided")
	now := decided
	now.OwnerID = "owner-successor" // same process, another owner's record
	if err := os.WriteFile(p.State, now.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.store.Stop(context.Background(), p.Name(), nil, decided, ownership.StopOptions{Action: "stop", Graceful: 100 * time.Millisecond, Kill: 100 * time.Millisecond, Escalate: true})
	if err == nil {
		t.Fatal("stop of a changed owner succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "nothing was sent") || strings.Contains(msg, "after SIGTERM") || errors.Is(err, ownership.ErrNotProvenDead) {
		t.Fatalf("stop error %q: must say nothing was sent", msg)
	}
	if alive, err := platform.Alive(decided.PID); err != nil || !alive {
		t.Fatalf("the process was signalled: alive=%t (%v)", alive, err)
	}
	if _, err := os.Lstat(p.Control); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a control request was written for an owner not stopped: %v", err)
	}
}

// A stop that gives up (SIGTERM ignored past the graceful timeout, no
// SIGKILL allowed) clears its control request: the owner must not find it
// later, after its operator saw the stop fail.
func TestFailedStopClearsItsControlRequest(t *testing.T) {
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	decided := startStandInAs(t, p, "owner-1", "stubborn")
	if err := os.WriteFile(p.State, decided.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.store.Stop(context.Background(), p.Name(), nil, decided, ownership.StopOptions{Action: "stop", Graceful: 300 * time.Millisecond, Kill: time.Second, Escalate: false})
	if !errors.Is(err, ownership.ErrDidNotExit) {
		t.Fatalf("stop of an owner ignoring SIGTERM = %v, want ErrDidNotExit", err)
	}
	if _, err := os.Lstat(p.Control); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control.json left behind by a failed stop: %v", err)
	}
}

// flakyArgvProbe proves the process at the first look and cannot examine
// it afterwards: the stop opens the owner, then every signal is refused.
type flakyArgvProbe struct {
	fsstore.Probe
	looks int
}

func (p *flakyArgvProbe) Argv(pid int, inc string) ([]string, error) {
	if p.looks++; p.looks > 1 {
		return nil, os.ErrPermission
	}
	return p.Probe.Argv(pid, inc)
}

// A stop that could send no signal at all leaves its control request (the
// only word the owner has) and says so; nothing was signalled.
func TestStopThatSentNothingLeavesItsRequest(t *testing.T) {
	agentDir := t.TempDir()
	p := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	decided := startStandIn(t, p, "owner-1")
	if err := os.WriteFile(p.State, decided.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{AgentDir: agentDir, Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{Probe: &flakyArgvProbe{Probe: fsstore.SystemProbe()}})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.store.Stop(context.Background(), p.Name(), nil, decided, ownership.StopOptions{Action: "stop", Graceful: 200 * time.Millisecond, Kill: 200 * time.Millisecond, Escalate: true})
	if err == nil || !strings.Contains(err.Error(), "SIGTERM not sent") || !strings.Contains(err.Error(), "request stays") {
		t.Fatalf("stop = %v; want a failure that sent nothing and kept the request", err)
	}
	if alive, aerr := platform.Alive(decided.PID); aerr != nil || !alive {
		t.Fatalf("the owner was signalled (alive %v, %v)", alive, aerr)
	}
	if _, err := os.Lstat(p.Control); err != nil {
		t.Errorf("the control request is gone: %v", err)
	}
}
