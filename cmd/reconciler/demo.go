package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/demo"
	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/logging"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// demoPace is how often the demo's agent publishes a message: a person
// can read along.
const demoPace = 1500 * time.Millisecond

func newDemoCommand(g *globals) *cobra.Command {
	var every time.Duration
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop against local fake Discord, Slack and Telegram servers; no tokens needed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			width := lineWidth(cmd.OutOrStdout())
			out := &syncWriter{w: cmd.OutOrStdout()}
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
			fmt.Fprintf(out, "demo: fake Discord at %s, fake Slack at %s, fake Telegram at %s\ndemo: agent dir %s (edit %s while it runs)\ndemo: Ctrl-C stops the loop, the daemons and the fakes, and removes the agent dir\n",
				env.Discord.URL(), env.Slack.URL(), env.Telegram.URL(), env.AgentDir, env.SpecPath)
			if exe, err := os.Executable(); err == nil {
				fmt.Fprintf(out, "demo: from another shell, try:\n")
				for _, c := range []string{"status", "stop slack", "start slack", "restart discord"} {
					fmt.Fprintf(out, "demo:   %s %s --agent-dir %s\n", exe, c, env.AgentDir)
				}
				fmt.Fprintf(out, "demo: and post to a session of your own, then watch it arrive:\n")
				for _, c := range []string{`--session demo --event open --title "Hello"`, `--session demo "my first post"`, `--session demo --event close`} {
					fmt.Fprintf(out, "demo:   %s send discord %s --agent-dir %s\n", exe, c, env.AgentDir)
				}
			}
			fmt.Fprintln(out)
			// The demo runs on one machine's files, whatever the flags say.
			opts, err := reconcileOptions(&fleetFlags{}, env.AgentDir, log, 0, 0)
			if err != nil {
				return err
			}
			progress := localapi.NewProgressHub()
			opts.Progress = progress.Report
			r, err := reconcile.New(opts)
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
			stopAPI, err := serveAPI(ctx, loop, progress, env.AgentDir, log)
			if err != nil {
				return err
			}
			defer stopAPI()
			go func() {
				if printEvery(ctx, out, env.AgentDir, env.SpecPath, every) != nil {
					outputGone()
				}
			}()
			// Each post as the fakes stored it, and a simulated coding
			// agent that gives them something to store.
			go func() {
				if env.Watch(ctx, func(p demo.Post) error {
					_, err := fmt.Fprintln(out, postLine(p, width))
					return err
				}) != nil {
					outputGone()
				}
			}()
			for _, name := range []string{"discord", "slack", "telegram"} {
				go func() {
					if err := demo.Produce(ctx, env.AgentDir, name, demoPace, env.Connected(name)); err != nil {
						log.Error(err, "demo agent stopped", "daemon", name)
					}
				}()
				// Two replies in an open session: the authorized user's
				// lands in the inbox, the other user's is ignored.
				go func() {
					if err := demoReplies(ctx, out, env, name); err != nil {
						log.Error(err, "demo replies stopped", "daemon", name)
					}
				}()
			}
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
	cmd.Flags().DurationVar(&every, "print-every", 10*time.Second, "how often the status table is printed")
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
			st, err := view(&fleetFlags{}, agentDir, specPath, nil)
			if err != nil {
				continue
			}
			// One write, so post lines printed meanwhile go around the
			// table, not through it.
			var b bytes.Buffer
			fmt.Fprintf(&b, "\n%s\n", time.Now().Format("15:04:05"))
			if err := printStatus(&b, st, "table"); err != nil {
				return err
			}
			b.WriteString("\n")
			if _, err := out.Write(b.Bytes()); err != nil {
				return err
			}
		}
	}
}
