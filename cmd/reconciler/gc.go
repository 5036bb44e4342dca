package main

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/localapi"
)

func newGCCommand(g *globals) *cobra.Command {
	var prune bool
	var output string
	var lockTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "List (or with --prune remove) what dead owners left behind; a dry run by default",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agentDir, specPath, err := g.lookPaths()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			// The loop's gc judges with the loop's spec; alone, with this
			// shell's, under the pass lock either way.
			waits := newWaitReporter(cmd.ErrOrStderr())
			a := newAPIChoice(cmd.ErrOrStderr(), &g.fleet, agentDir, specPath, g.log, waits)
			rep, err := ask(a, "gc", func(b localapi.Backend) (*gc.Report, error) {
				return b.GC(ctx, localapi.GCRequest{Prune: prune, LockTimeout: metav1.Duration{Duration: lockTimeout}})
			})
			waits.Close()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				if err := printJSON(out, rep); err != nil {
					return err
				}
			} else {
				for _, it := range rep.Items {
					fmt.Fprintf(out, "%-12s %-14s %s: %s\n", it.Action, it.Kind, it.Path, it.Reason)
				}
				fmt.Fprintln(out, rep.Line())
			}
			if rep.Summary.Failed > 0 {
				return &exitError{code: exitNotDone}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "remove what is proven stale (default: only list it)")
	addOutputFlag(cmd, &output, textFormats)
	cmd.Flags().DurationVar(&lockTimeout, "lock-timeout", localapi.DefaultLockTimeout, "how long to wait for another reconciler's pass to finish")
	return cmd
}
