package main

import (
	"context"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

type operateFlags struct {
	output      string
	lockTimeout time.Duration
	all         bool
}

func (f *operateFlags) add(cmd *cobra.Command, all string) {
	addOutputFlag(cmd, &f.output, textFormats)
	cmd.Flags().DurationVar(&f.lockTimeout, "lock-timeout", localapi.DefaultLockTimeout, "how long to wait for another reconciler's pass to finish")
	if all != "" {
		cmd.Flags().BoolVar(&f.all, "all", false, all)
	}
}

// request is what one operator command asks of a backend, the loop's or
// this process's.
type request func(ctx context.Context, b localapi.Backend, sel reconcile.Selection, lock metav1.Duration) (*localapi.OperateResponse, error)

// newOperateCommand is a command that runs on NAME... (or --all, when all
// says what it means), with the flags every such command takes.
func newOperateCommand(g *globals, use, short, all string, req request) *cobra.Command {
	f := &operateFlags{}
	cmd := &cobra.Command{
		Use:   use + " NAME...",
		Short: short,
		RunE: func(cmd *cobra.Command, names []string) error {
			return operate(cmd, g, f, reconcile.Selection{Names: names, All: f.all}, req)
		},
	}
	if all != "" {
		cmd.Use = use + " NAME...|--all"
	}
	f.add(cmd, all)
	return cmd
}

func newStopCommand(g *globals) *cobra.Command {
	var force bool
	var graceful, kill time.Duration
	cmd := newOperateCommand(g, "stop", "Stop daemons now and hold them stopped until start: control request and SIGTERM; SIGKILL only with --force",
		"every name this reconciler manages: declared by the spec or in its inventory",
		func(ctx context.Context, b localapi.Backend, sel reconcile.Selection, lock metav1.Duration) (*localapi.OperateResponse, error) {
			return b.Stop(ctx, localapi.StopRequest{Selection: sel, Force: force, LockTimeout: lock,
				GracefulTimeout: metav1.Duration{Duration: graceful}, KillTimeout: metav1.Duration{Duration: kill}})
		})
	cmd.Flags().BoolVar(&force, "force", false, "SIGKILL a daemon that does not exit within --graceful-timeout")
	cmd.Flags().DurationVar(&graceful, "graceful-timeout", spec.DefaultGracefulTimeout, "SIGTERM -> exit bound")
	cmd.Flags().DurationVar(&kill, "kill-timeout", spec.DefaultKillTimeout, "SIGKILL -> exit bound (with --force)")
	return cmd
}

func newRestartCommand(g *globals) *cobra.Command {
	return newOperateCommand(g, "restart", "Stop-and-replace daemons now, as the loop would for a drifted one", "",
		func(ctx context.Context, b localapi.Backend, sel reconcile.Selection, lock metav1.Duration) (*localapi.OperateResponse, error) {
			return b.Restart(ctx, localapi.RestartRequest{Selection: sel, LockTimeout: lock})
		})
}

func newStartCommand(g *globals) *cobra.Command {
	return newOperateCommand(g, "start", "Let go of a stop's hold on daemons and start them now, if the spec says Running",
		"every name the spec declares and every held one",
		func(ctx context.Context, b localapi.Backend, sel reconcile.Selection, lock metav1.Duration) (*localapi.OperateResponse, error) {
			return b.Start(ctx, localapi.StartRequest{Selection: sel, LockTimeout: lock})
		})
}

// operate asks the loop (or, with none answering, this process) to run one
// operator command and prints a result per name. Every name is checked
// before anything is touched; exit 1 if any name's operation failed.
func operate(cmd *cobra.Command, g *globals, f *operateFlags, sel reconcile.Selection, req request) error {
	for _, n := range sel.Names {
		if err := checkNameArg(n); err != nil {
			return err
		}
	}
	if len(sel.Names) == 0 && !sel.All {
		or := ""
		if cmd.Flags().Lookup("all") != nil {
			or = ", or --all"
		}
		return &exitError{code: exitInvalid, err: fmt.Errorf("%s: give at least one NAME%s", cmd.Name(), or)}
	}
	if len(sel.Names) > 0 && sel.All {
		return &exitError{code: exitInvalid, err: fmt.Errorf("%s: give names or --all, not both", cmd.Name())}
	}
	agentDir, specPath, err := g.paths()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	waits := newWaitReporter(cmd.ErrOrStderr())
	defer waits.Close()
	a := newAPIChoice(cmd.ErrOrStderr(), &g.fleet, agentDir, specPath, g.log, waits)
	resp, err := ask(a, doing(cmd.Name(), sel), func(b localapi.Backend) (*localapi.OperateResponse, error) {
		return req(ctx, b, sel, metav1.Duration{Duration: f.lockTimeout})
	})
	waits.Close()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.output == "json" {
		// One NAME prints its result; several, or --all, a list of them.
		var v any = resp.Results
		if len(sel.Names) == 1 && len(resp.Results) == 1 {
			v = resp.Results[0]
		}
		if err := printJSON(out, v); err != nil {
			return err
		}
	} else {
		if len(resp.Results) == 0 {
			fmt.Fprintf(out, "no daemon to %s\n", cmd.Name())
		}
		for _, r := range resp.Results {
			fmt.Fprintln(out, r.Message)
			if !r.OK {
				for _, l := range afterFailure(r.Message, r.Before, r.After) {
					fmt.Fprintln(out, l)
				}
			}
			for _, w := range r.Warnings {
				fmt.Fprintln(out, "warning:", w)
			}
		}
	}
	if resp.Failed() {
		return &exitError{code: exitNotDone}
	}
	return nil
}

// doing is what a command asks the loop to do, for its wait line.
func doing(action string, sel reconcile.Selection) string {
	if sel.All {
		return action + " --all"
	}
	return action + " " + strings.Join(sel.Names, " ")
}

// checkNameArg refuses a name no spec could declare: joined into a path,
// "x/../d1" or "d1/" would be d1's dir.
func checkNameArg(name string) error {
	if msgs := spec.NameErrors(name); len(msgs) > 0 {
		return &exitError{code: exitInvalid, err: fmt.Errorf("%q is not a daemon name: %s", name, strings.Join(msgs, "; "))}
	}
	return nil
}
