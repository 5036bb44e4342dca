package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/demo"
	"gjc.dev/reconciler/pkg/logging"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

func newDemoCommand(g *globals) *cobra.Command {
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop against local fake Discord and Slack servers; no tokens needed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			env, err := demo.Setup()
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			defer env.Close()
			log := g.log
			if g.logFormat == logging.FormatAuto {
				// Console logs even when piped: the demo is for reading.
				if log, err = logging.New(os.Stderr, logging.FormatConsole, g.verbosity); err != nil {
					return err
				}
			}
			fmt.Fprintf(out, "demo: fake Discord at %s, fake Slack at %s\ndemo: agent dir %s (edit %s while it runs)\ndemo: Ctrl-C stops the loop, the daemons and the fakes, and removes the agent dir\n",
				env.Discord.URL(), env.Slack.URL(), env.AgentDir, env.SpecPath)
			if exe, err := os.Executable(); err == nil {
				fmt.Fprintf(out, "demo: from another shell, try:\n")
				for _, c := range []string{"status", "stop slack", "start slack", "restart discord"} {
					fmt.Fprintf(out, "demo:   %s %s --agent-dir %s\n", exe, c, env.AgentDir)
				}
			}
			fmt.Fprintln(out)
			r, err := reconcile.New(reconcileOptions(env.AgentDir, log, 0))
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			defer r.Close()
			// A closed terminal (SIGHUP) ends the demo as Ctrl-C does, and so
			// does a closed output pipe: SIGPIPE is caught, so a write fails
			// with EPIPE instead of killing the demo before it cleans up.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
			defer stop()
			ctx, outputGone := context.WithCancel(ctx)
			defer outputGone()
			loop := reconcile.NewLoop(r, reconcile.LoopOptions{SpecPath: env.SpecPath, LockTimeout: 30 * time.Second, WarmReplacements: true})
			stopAPI, err := serveAPI(ctx, loop, env.AgentDir, log)
			if err != nil {
				return err
			}
			defer stopAPI()
			go func() {
				if printEvery(ctx, out, env.AgentDir, env.SpecPath, every) != nil {
					outputGone()
				}
			}()
			if err := loop.Run(ctx); err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			fmt.Fprintln(out, "\ndemo: stopping the daemons")
			res := spec.LoadOnce(env.SpecPath)
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			names := r.Names(res)
			results := make([]reconcile.OperateResult, len(names))
			var wg sync.WaitGroup
			for i, name := range names {
				wg.Go(func() {
					results[i] = r.Stop(sctx, name, nil, res, reconcile.StopOptions{Force: true, Graceful: spec.DefaultGracefulTimeout, Kill: spec.DefaultKillTimeout})
				})
			}
			wg.Wait()
			for _, o := range results {
				fmt.Fprintf(out, "demo: %s\n", o.Message)
			}
			fmt.Fprintf(out, "demo: fakes stopped, %s removed\n", env.AgentDir)
			return nil
		},
	}
	cmd.Flags().DurationVar(&every, "print-every", 3*time.Second, "how often the status table is printed")
	return cmd
}

// printEvery prints the status table every so often until ctx is done, or
// until the output cannot be written (its reader went away): then it
// returns the write's error.
func printEvery(ctx context.Context, out interface{ Write([]byte) (int, error) }, agentDir, specPath string, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			st, err := view(agentDir, specPath, nil)
			if err != nil {
				continue
			}
			if _, err := fmt.Fprintf(out, "\n%s\n", time.Now().Format("15:04:05")); err != nil {
				return err
			}
			if err := printStatus(out, st, "table"); err != nil {
				return err
			}
		}
	}
}
