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
			// A watch waits for an agent dir that is not there yet, and
			// says so; a look is told at once that there is none.
			paths := g.lookPaths
			if watch {
				paths = g.paths
			}
			agentDir, specPath, err := paths()
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
			if err := printStatus(cmd.OutOrStdout(), st, output); err != nil {
				return err
			}
			if !st.SpecValid {
				// The table is shown, and the exit says what DESIGN 7's 2
				// says: the spec is invalid (its errors are listed above).
				return &exitError{code: exitInvalid}
			}
			return nil
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
