package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/spec"
)

func newValidateCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "Parse and validate the spec; touches nothing",
		Long: `Parse and validate the spec, resolving every secret reference, and print
"ok: N daemons: a, b" or every error, one per line. Exit 0 when valid, 2 when not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := g.resolveSpec()
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			res := spec.LoadOnce(path)
			out := cmd.OutOrStdout()
			for _, w := range res.Warnings {
				fmt.Fprintln(out, "warning:", w)
			}
			if !res.Valid() {
				for _, e := range res.Errors {
					fmt.Fprintln(out, e)
				}
				return &exitError{code: exitInvalid, err: errors.New(plural(len(res.Errors), "error") + " in " + path)}
			}
			fmt.Fprintf(out, "ok: %d daemons: %s\n", len(res.Daemons), strings.Join(res.Names(), ", "))
			return nil
		},
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
