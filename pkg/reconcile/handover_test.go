package reconcile

import (
	"context"
	"fmt"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
	"gjc.dev/reconciler/pkg/spec"
)

const successorOwner = "owner-successor"

// runHandover is an owner that, asked to stop, hands over as a daemon of
// the reference system may: it starts its successor (a process with a
// daemon's command line for the same name), publishes the successor's
// healthy record at generation 2, and exits.
func runHandover() int {
	flags, err := ownershipFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	p := ownership.PathsFor(flags[0], flags[1])
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	fmt.Println("ready")
	<-term
	succ := exec.Command(os.Args[0], daemonproto.Args(ownership.ClaimOf(p, successorOwner), 2)...)
	succ.Env = append(os.Environ(), helperEnv+"=forever")
	if err := succ.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Wait for the exec, as a daemon's own start would.
	var inc string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if inc, err = platform.Incarnation(succ.Process.Pid); err != nil {
			continue
		}
		if argv, err := platform.ProcessArgv(succ.Process.Pid, inc); err == nil && len(argv) > 1 && argv[1] == daemonproto.Command {
			break
		}
	}
	st := standInRecord(succ.Process.Pid, inc, successorOwner, 2)
	if err := atomicfile.Write(p.State, st.Marshal()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// ownershipFlags reads --agent-dir and --name from a daemon's arguments.
func ownershipFlags(args []string) ([2]string, error) {
	var out [2]string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--" + daemonproto.FlagAgentDir:
			out[0] = args[i+1]
		case "--" + daemonproto.FlagName:
			out[1] = args[i+1]
		}
	}
	if out[0] == "" || out[1] == "" {
		return out, fmt.Errorf("no --agent-dir or --name in %q", args)
	}
	return out, nil
}

// Stop-and-replace of an owner that hands over to a successor on its way
// out: once the old one is gone the pass looks again and attaches to the
// healthy successor, instead of spawning a daemon that can only exit 3 (here
// the executable is /bin/false, so a spawn shows as a crash).
func TestReplaceAttachesToSuccessor(t *testing.T) {
	agentDir := privateAgentDir(t)
	p := ownership.PathsFor(agentDir, "bot")
	if err := fsstore.EnsureDir(p); err != nil {
		t.Fatal(err)
	}
	old := exec.Command(os.Args[0], daemonproto.Args(ownership.ClaimOf(p, "owner-old"), 1)...)
	old.Env = append(os.Environ(), helperEnv+"=handover")
	out, err := old.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = old.Process.Kill(); _ = old.Wait() })
	if _, err := fmt.Fscanln(out, new(string)); err != nil {
		t.Fatalf("old owner not ready: %v", err)
	}
	inc, err := platform.Incarnation(old.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	st := standInRecord(old.Process.Pid, inc, "owner-old", 1)
	if err := os.WriteFile(p.State, st.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if rec := fsstore.ReadState(p); rec.State != nil && rec.State.OwnerID == successorOwner {
			_ = syscall.Kill(rec.State.PID, syscall.SIGKILL)
		}
	})

	r, err := New(Options{AgentDir: agentDir, Executable: "/bin/false", Log: logr.Discard(), Store: fsstore.New(agentDir, fsstore.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := &spec.Daemon{Identity: standInIdentity, Config: spec.Config{Name: "bot", Provider: spec.ProviderSlack, Generation: 2,
		State: spec.StateRunning, ReadyTimeout: 10 * time.Second, GracefulTimeout: 10 * time.Second, KillTimeout: time.Second}}
	res := &spec.Result{Daemons: []*spec.Daemon{d}}
	o := r.Reconcile(context.Background(), "bot", d, res)
	if o.Status.Phase != PhaseRunning || o.Status.Reason != ReasonReady || o.Status.OwnerID != successorOwner {
		t.Fatalf("after the handover: %s %s owner %q: %s", o.Status.Phase, o.Status.Reason, o.Status.OwnerID, o.Status.Message)
	}
	if _, err := os.Lstat(p.Dir + "/daemon.log"); !os.IsNotExist(err) {
		t.Errorf("a daemon was spawned beside the successor (daemon.log: %v)", err)
	}
}
