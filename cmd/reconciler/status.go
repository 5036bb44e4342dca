package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/reconcile"
)

func newStatusCommand(g *globals) *cobra.Command {
	var output string
	var watch bool
	cmd := &cobra.Command{
		Use:   "status [NAME...]",
		Short: "Show each daemon: status.json merged with a live look at its record",
		RunE: func(cmd *cobra.Command, names []string) error {
			agentDir, specPath, err := g.paths()
			if err != nil {
				return err
			}
			for _, n := range names {
				if err := checkNameArg(n); err != nil {
					return err
				}
			}
			src := newAPIChoice(cmd.ErrOrStderr(), &g.fleet, agentDir, specPath, g.log, nil)
			load := func() (*reconcile.Status, error) {
				return src.status(names)
			}
			if watch {
				return runStatusWatch(cmd, agentDir, names, output, load)
			}
			st, err := load()
			if err != nil {
				return err
			}
			if err := unknownNames(st, names); err != nil {
				return err
			}
			return printStatus(cmd.OutOrStdout(), st, output)
		},
	}
	addOutputFlag(cmd, &output, tableFormats)
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "after the table, print each row again when it changes, until interrupted")
	return cmd
}

// unknownNames is exit 2 for a name asked for that nothing knows: not in
// the spec, the last status or the daemon dirs. A typo must not read as a
// stopped daemon.
func unknownNames(st *reconcile.Status, names []string) error {
	for _, n := range names {
		if !slices.ContainsFunc(st.Daemons, func(d reconcile.DaemonStatus) bool { return d.Name == n }) {
			return &exitError{code: exitInvalid, err: fmt.Errorf("unknown daemon %q: not in the spec, the status or the daemon dirs", n)}
		}
	}
	return nil
}
