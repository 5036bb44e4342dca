package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/service"
	"gjc.dev/reconciler/pkg/spec"
)

// loopFlags are the root command's own flags.
type loopFlags struct {
	once        bool
	resync      time.Duration
	lockTimeout time.Duration
	heartbeat   time.Duration
	warm        bool
	metricsAddr string
}

func addLoopFlags(cmd *cobra.Command, f *loopFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.once, "once", false, "run one pass with its bounded waits and exit: 0 converged, 1 not, 2 invalid spec, 3 lock not had")
	fl.DurationVar(&f.resync, "resync-period", 30*time.Second, "how often the loop looks at every name without a trigger")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", 30*time.Second, "how long to wait for another reconciler's pass to finish")
	fl.DurationVar(&f.heartbeat, "daemon-heartbeat", 0, "heartbeat interval passed to spawned daemons (default: theirs, 5s)")
	_ = fl.MarkHidden("daemon-heartbeat")
	fl.StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on host:port at /metrics, such as 127.0.0.1:9464 (off when empty; another host's address is served with a warning; not used by --once)")
	fl.BoolVar(&f.warm, "warm-replacements", true, "keep each healthy daemon's replacement started and waiting for its config, so a restart skips the binary's start (one idle process per running daemon); not used by --once")
}

// runLoop is the root command: one pass (--once) or the continuous loop.
func runLoop(cmd *cobra.Command, g *globals, f *loopFlags) error {
	agentDir, specPath, err := g.paths()
	if err != nil {
		return err
	}
	if f.once {
		return runOnce(cmd, g, f, agentDir, specPath)
	}
	ms, err := startMetrics(g.log, f.metricsAddr)
	if err != nil {
		return err
	}
	defer ms.stop()
	opts, err := reconcileOptions(&g.fleet, agentDir, g.log, f.heartbeat, g.verbosity)
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	opts.Hooks = ms.hooks()
	// The loop's waits, for the commands that wait on it over the API.
	progress := localapi.NewProgressHub()
	opts.Progress = progress.Report
	r, err := reconcile.New(opts)
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	defer r.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	notifier := service.NewNotifier(g.log)
	// STOPPING=1 goes out as soon as a signal arrives, while the last
	// status is written; the process does not exit before it is sent.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		notifier.Stopping()
	}()
	defer func() {
		stop()
		<-stopped
	}()
	loop := reconcile.NewLoop(r, reconcile.LoopOptions{
		SpecPath: specPath, Resync: f.resync, LockTimeout: f.lockTimeout, WarmReplacements: f.warm,
		OnStatus: func(p reconcile.PassResult) {
			ready, desired := p.Ready()
			notifier.Pass(ready, desired, len(p.Status.SpecErrors))
			ms.status(p)
		},
		OnReloaded: notifier.Reloaded,
		Watchdog:   notifier.WatchdogInterval(), OnWatchdog: notifier.Watchdog,
	})
	stopAPI, err := serveAPI(ctx, loop, progress, agentDir, g.log)
	if err != nil {
		return err
	}
	defer stopAPI()
	stopForwarding, err := g.fleet.forward(ctx, agentDir, loop, g.log)
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	defer stopForwarding()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			g.log.Info("SIGHUP: re-reading the spec")
			notifier.Reloading()
			loop.Reload()
		}
	}()
	g.log.Info("reconcile loop starting", "agentDir", agentDir, "spec", specPath, "resync", f.resync.String())
	if err := loop.Run(ctx); err != nil {
		if errors.Is(err, ownership.ErrPassesLocked) {
			return &exitError{code: exitLockTimeout, err: err}
		}
		return &exitError{code: exitNotDone, err: err}
	}
	g.log.Info("reconcile loop stopped; daemons keep running")
	return nil
}

// runOnce is `--once`: an invalid spec touches nothing (there is no last
// known good in a fresh process), then one pass under the lock.
func runOnce(cmd *cobra.Command, g *globals, f *loopFlags, agentDir, specPath string) error {
	out := cmd.OutOrStdout()
	res := spec.LoadOnce(specPath)
	if !res.Valid() {
		for _, e := range res.Errors {
			fmt.Fprintln(out, e)
		}
		return &exitError{code: exitInvalid, err: fmt.Errorf("invalid spec %s: nothing touched", specPath)}
	}
	waits := newWaitReporter(cmd.ErrOrStderr())
	defer waits.Close()
	opts, err := reconcileOptions(&g.fleet, agentDir, g.log, f.heartbeat, g.verbosity)
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	opts.Progress = waits.Report
	r, err := reconcile.New(opts)
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	defer r.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	release, err := passLock(ctx, agentDir, f.lockTimeout, waits.Report)
	if err != nil {
		return err
	}
	defer release()
	r.SaveLastGood(res) // so a loop started later on a broken file keeps what this pass applied
	pass := r.Pass(ctx, res)
	waits.Close()
	if pass.Converged {
		fmt.Fprintln(out, onceSummary(pass.Status))
		return nil
	}
	for _, l := range onceFailures(pass) {
		fmt.Fprintln(out, l)
	}
	if len(pass.Unseen) > 0 {
		fmt.Fprintf(out, "status.json left as it was: this pass cannot examine the process of %s (it runs in another PID namespace than the daemons); run it where the daemons run\n", strings.Join(pass.Unseen, ", "))
	}
	return &exitError{code: exitNotDone}
}
