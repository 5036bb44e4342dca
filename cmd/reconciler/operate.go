package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

type operateFlags struct {
	output      string
	lockTimeout time.Duration
}

func (f *operateFlags) add(cmd *cobra.Command) {
	addOutputFlag(cmd, &f.output, textFormats)
	cmd.Flags().DurationVar(&f.lockTimeout, "lock-timeout", 30*time.Second, "how long to wait for another reconciler's pass to finish")
}

// operation is what one operator command does to the name it is given: a
// method expression of reconcile.Reconciler, such as (*Reconciler).Start.
type operation func(r *reconcile.Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) reconcile.OperateResult

// newOperateCommand is a command that runs op on one NAME under the pass
// lock, with the flags every such command takes.
func newOperateCommand(g *globals, use, short string, op operation) *cobra.Command {
	f := &operateFlags{}
	cmd := &cobra.Command{
		Use:   use + " NAME",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return operate(cmd, g, f, args[0], func(ctx context.Context, r *reconcile.Reconciler, d *spec.Daemon, res *spec.Result) reconcile.OperateResult {
				return op(r, ctx, args[0], d, res)
			})
		},
	}
	f.add(cmd)
	return cmd
}

func newStopCommand(g *globals) *cobra.Command {
	var o reconcile.StopOptions
	cmd := newOperateCommand(g, "stop", "Stop one daemon now and hold it stopped until start: control request and SIGTERM; SIGKILL only with --force",
		func(r *reconcile.Reconciler, ctx context.Context, name string, d *spec.Daemon, res *spec.Result) reconcile.OperateResult {
			return r.Stop(ctx, name, d, res, o)
		})
	cmd.Flags().BoolVar(&o.Force, "force", false, "SIGKILL a daemon that does not exit within --graceful-timeout")
	cmd.Flags().DurationVar(&o.Graceful, "graceful-timeout", spec.DefaultGracefulTimeout, "SIGTERM -> exit bound")
	cmd.Flags().DurationVar(&o.Kill, "kill-timeout", spec.DefaultKillTimeout, "SIGKILL -> exit bound (with --force)")
	return cmd
}

func newRestartCommand(g *globals) *cobra.Command {
	return newOperateCommand(g, "restart", "Stop-and-replace one daemon now, as the loop would for a drifted one", (*reconcile.Reconciler).Restart)
}

func newStartCommand(g *globals) *cobra.Command {
	return newOperateCommand(g, "start", "Let go of a stop's hold on one daemon and start it now, if the spec says Running", (*reconcile.Reconciler).Start)
}

// operate runs one operator command under the pass lock and prints its result.
func operate(cmd *cobra.Command, g *globals, f *operateFlags, name string,
	op func(context.Context, *reconcile.Reconciler, *spec.Daemon, *spec.Result) reconcile.OperateResult) error {
	if err := checkNameArg(name); err != nil {
		return err
	}
	agentDir, specPath, err := g.paths()
	if err != nil {
		return err
	}
	// An invalid spec does not stop an operator: the name is judged by its
	// record alone, as if no source declared it.
	res := spec.LoadOnce(specPath)
	d := res.Lookup(name)
	if d == nil {
		// Not declared: known only by a daemon dir. A typo is an error,
		// not "no running daemon".
		if _, err := os.Lstat(ownership.PathsFor(agentDir, name).Dir); errors.Is(err, os.ErrNotExist) {
			return &exitError{code: exitInvalid, err: fmt.Errorf("unknown daemon %q: not in the spec and no daemon dir", name)}
		}
	}
	waits := newWaitReporter(cmd.ErrOrStderr())
	defer waits.Close()
	opts := reconcileOptions(agentDir, g.log, 0)
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
	result := op(ctx, r, d, res)
	release()
	waits.Close()
	out := cmd.OutOrStdout()
	if f.output == "json" {
		data, err := json.MarshalIndent(result, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s\n", data)
	} else {
		fmt.Fprintln(out, result.Message)
		if !result.OK {
			for _, l := range afterFailure(result.Message, result.Before, result.After) {
				fmt.Fprintln(out, l)
			}
		}
		for _, w := range result.Warnings {
			fmt.Fprintln(out, "warning:", w)
		}
	}
	if !result.OK {
		return &exitError{code: exitNotDone}
	}
	return nil
}

// checkNameArg refuses a name no spec could declare: joined into a path,
// "x/../d1" or "d1/" would be d1's dir.
func checkNameArg(name string) error {
	if msgs := spec.NameErrors(name); len(msgs) > 0 {
		return &exitError{code: exitInvalid, err: fmt.Errorf("%q is not a daemon name: %s", name, strings.Join(msgs, "; "))}
	}
	return nil
}
