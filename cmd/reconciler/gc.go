package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/gc"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
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
			agentDir, specPath, err := g.paths()
			if err != nil {
				return err
			}
			managed, problems, err := reconcile.ReadInventory(fsstore.Files{}, agentDir, g.log)
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			res := spec.LoadOnce(specPath)
			managed = append(managed, res.Names()...)
			opts := gc.Options{AgentDir: agentDir, Managed: managed, Prune: prune}
			if !res.Valid() || len(problems) > 0 {
				// A broken spec may declare any name, and a damaged
				// inventory may have meant any: keep every record.
				opts.KeepAllRecords = true
			}
			// The pass lock keeps gc from judging files a pass is changing.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			waits := newWaitReporter(cmd.ErrOrStderr())
			release, err := passLock(ctx, agentDir, lockTimeout, waits.Report)
			waits.Close()
			if err != nil {
				return err
			}
			rep, err := gc.Run(opts)
			release()
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				data, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s\n", data)
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
	cmd.Flags().DurationVar(&lockTimeout, "lock-timeout", 30*time.Second, "how long to wait for another reconciler's pass to finish")
	return cmd
}
