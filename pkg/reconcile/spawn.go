package reconcile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/google/uuid"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// child is a daemon this process started. It is reaped by a goroutine, so it
// never lingers as a zombie while the reconciler runs.
type child struct {
	ownerID  string
	pid      int
	done     chan struct{}
	exit     daemonproto.Exit // how it ended; set before done is closed
	exitedAt time.Time
	released bool // the store was told of its exit (reaped.go)
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// spawn starts `reconciler daemon` for d, detached in its own session, with
// its resolved config on stdin. The name goes into the inventory first. A
// warm replacement standing by for exactly this launch is handed the config
// instead of starting a process (see standby.go); whatever it was, the
// caller gets a child that is tracked and judged the same way.
func (r *Reconciler) spawn(d *spec.Daemon, paths ownership.Paths) (*child, error) {
	if err := r.inv.add(d.Name()); err != nil {
		return nil, err
	}
	stdin, err := daemonproto.ConfigStdin(&d.Config, r.opts.DaemonSecrets)
	if err != nil {
		return nil, err
	}
	config, err := io.ReadAll(stdin)
	if err != nil {
		return nil, fmt.Errorf("encoding the daemon's config: %w", err)
	}
	if c := r.warm.handOver(d, paths, config); c != nil {
		r.log.Info("spawned daemon", "name", d.Name(), "pid", c.pid, "ownerId", c.ownerID, "generation", d.Config.Generation, "warm", true)
		r.event(d.Name(), EventNormal, EventSpawned, fmt.Sprintf("started pid %d at generation %d (a warm replacement, handed its config)", c.pid, d.Config.Generation))
		return c, nil
	}
	ownerID := newOwnerID()
	cmd, _, err := r.start(r.launchOf(d, paths, ownerID), paths, bytes.NewReader(config))
	if err != nil {
		return nil, err
	}
	c := &child{ownerID: ownerID, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		c.reap(cmd)
		r.childExited(d.Name(), c)
	}()
	r.log.Info("spawned daemon", "name", d.Name(), "pid", c.pid, "ownerId", ownerID, "generation", d.Config.Generation)
	r.event(d.Name(), EventNormal, EventSpawned, fmt.Sprintf("started pid %d at generation %d", c.pid, d.Config.Generation))
	return c, nil
}

func newOwnerID() string { return fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()) }

// launch is the process a spawn starts, less its stdin.
type launch struct {
	exe  string
	args []string
	env  []string
}

// launchOf is the launch of d's daemon running as ownerID.
func (r *Reconciler) launchOf(d *spec.Daemon, paths ownership.Paths, ownerID string) launch {
	// The command line is the daemon's proof of who it is (see
	// fsstore.VerifyDaemonArgv): built from the names it checks.
	return launch{
		exe: r.opts.Executable,
		args: daemonproto.Args(ownership.ClaimOf(paths, ownerID), d.Config.Generation,
			append(daemonproto.HeartbeatArgs(r.opts.DaemonHeartbeat), r.opts.DaemonArgs...)...),
		env: daemonproto.Env(os.Environ(), r.secretVars()),
	}
}

// start starts l with stdin, its stdout and stderr on the name's daemon.log,
// and returns the log file's identity as the child got it.
func (r *Reconciler) start(l launch, paths ownership.Paths, stdin io.Reader) (*exec.Cmd, os.FileInfo, error) {
	logFile, err := os.OpenFile(filepath.Join(paths.Dir, "daemon.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("opening daemon.log: %w", err)
	}
	defer logFile.Close()
	logID, err := logFile.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("opening daemon.log: %w", err)
	}
	cmd := exec.Command(l.exe, l.args...)
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = l.env
	cmd.Dir = "/"
	// Its own session: a signal to the reconciler's process group or terminal
	// never reaches a daemon, and the daemon outlives the reconciler.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting daemon: %w", err)
	}
	return cmd, logID, nil
}

// reap waits for cmd, records how it ended (code or signal) and closes done.
func (c *child) reap(cmd *exec.Cmd) {
	_ = cmd.Wait() // its error says no more than ProcessState
	c.exit = daemonproto.ExitOf(cmd.ProcessState)
	c.exitedAt = time.Now()
	close(c.done)
}

// waitOwnerHealthy waits, bounded by the object's readyTimeout and woken by
// file events in the daemon dir (not a poll), until ownerID's record is
// healthy. c, when set, is the spawned process: its exit ends the wait.
func (r *Reconciler) waitOwnerHealthy(ctx context.Context, d *spec.Daemon, paths ownership.Paths, ownerID string, c *child) (ownership.Record, ownership.Classification, error) {
	events, cancel, err := r.store.Watch(d.Name())
	if err != nil {
		return ownership.Record{}, ownership.Classification{}, fmt.Errorf("watching %s: %w", paths.Dir, err)
	}
	defer cancel()
	timeout := time.NewTimer(d.Config.ReadyTimeout)
	defer timeout.Stop()
	deadline := time.Now().Add(d.Config.ReadyTimeout)
	defer r.progress(Progress{Name: d.Name()})
	var exited <-chan struct{}
	if c != nil {
		exited = c.done
	}
	// The watch only makes the wait quick: a dir removed and re-created
	// while it is watched (an operator's rm -rf racing the daemon's mkdir)
	// can leave it on the old dir without a word. Looking again each
	// readyRecheck bounds that to a second, not the whole readyTimeout;
	// each look also puts the watch back on the dir (Observe).
	recheck := time.NewTicker(readyRecheck)
	defer recheck.Stop()
	for {
		rec, cls := r.observe(d.Name(), desiredOf(d))
		if rec.State != nil && rec.State.OwnerID == ownerID && cls.Health == ownership.HealthHealthy &&
			(cls.Class == ownership.ClassCompatible || cls.Class == ownership.ClassNewer) {
			return rec, cls, nil
		}
		p := Progress{Name: d.Name(), Wait: WaitReady, Deadline: deadline}
		if c != nil {
			p.PID = c.pid
		}
		if s := rec.State; s != nil && s.OwnerID == ownerID {
			p.PID, p.Detail = s.PID, s.TransportError
		}
		r.progress(p)
		select {
		case <-events:
		case <-recheck.C:
		case <-exited:
			rec, cls = r.observe(d.Name(), desiredOf(d))
			return rec, cls, fmt.Errorf("daemon pid %d %s before it was healthy", c.pid, c.exit)
		case <-timeout.C:
			return rec, cls, fmt.Errorf("not healthy within readyTimeout %v%s", d.Config.ReadyTimeout, transportSaid(rec, ownerID))
		case <-ctx.Done():
			return rec, cls, ctx.Err()
		}
	}
}

// readyRecheck is how often a wait for a daemon's readiness reads its
// record without being woken.
const readyRecheck = time.Second

func desiredOf(d *spec.Daemon) ownership.Desired {
	return ownership.Desired{Kind: string(d.Config.Provider), Identity: d.Identity, Generation: d.Config.Generation}
}

// transportSaid is what ownerID's record last said about its connection,
// for the message of a wait that gave up: the why an operator needs.
func transportSaid(rec ownership.Record, ownerID string) string {
	if s := rec.State; s != nil && s.OwnerID == ownerID && s.TransportError != "" {
		return "; its transport: " + s.TransportError
	}
	return ""
}
