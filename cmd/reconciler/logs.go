package main

import (
	"bufio"
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/daemonlog"
	"gjc.dev/reconciler/pkg/linefile"
)

func newLogsCommand(g *globals) *cobra.Command {
	var follow bool
	var tail int
	cmd := &cobra.Command{
		Use:   "logs NAME",
		Short: "Show a daemon's daemon.log, readable: time, level, message, key=value fields",
		Long: `Show the daemon's current daemon.log with its JSON lines rendered as time
(local), level, message and key=value fields; a line that is not JSON (a Go
panic) is shown as it is. As kubectl logs does, it shows the whole current
file by default (the daemon rotates it at 10 MiB; older files are
daemon-<time>.log beside it); --tail N shows the last N lines. -f keeps
printing lines as the daemon writes them, across its rotation, until
interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			agentDir, specPath, err := g.paths()
			if err != nil {
				return err
			}
			if _, err := lookNames(look(cmd, g, agentDir, specPath), []string{name}, nil); err != nil {
				return err
			}
			r := daemonlog.Renderer{Loc: time.Local, Omit: map[string]string{"daemon": name}}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			if !follow {
				cut, err := daemonlog.Read(agentDir, name, tail, func(l linefile.Line) { fmt.Fprintln(w, r.Render(l)) })
				if cut {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: daemon.log is over %d MiB; its first lines are not shown\n", daemonlog.Window>>20)
				}
				if err != nil {
					return &exitError{code: exitNotDone, err: err}
				}
				return w.Flush()
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			err = daemonlog.Follow(ctx, agentDir, name, tail, func(l linefile.Line) {
				fmt.Fprintln(w, r.Render(l))
				_ = w.Flush() // each line as it comes
			})
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing lines as the daemon writes them, until interrupted")
	cmd.Flags().IntVar(&tail, "tail", -1, "show only the last N lines (-1: the whole current file)")
	return cmd
}
