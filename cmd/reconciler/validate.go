package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/spec"
)

// validateReport is `validate -o json`.
type validateReport struct {
	Spec     string   `json:"spec"`
	Valid    bool     `json:"valid"`
	Daemons  []string `json:"daemons"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
}

func newValidateCommand(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
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
			if output == "json" {
				rep := validateReport{Spec: path, Valid: res.Valid(), Daemons: res.Names(), Errors: []string{}, Warnings: []string{}}
				if !rep.Valid {
					rep.Daemons = []string{}
				}
				for _, e := range res.Errors {
					rep.Errors = append(rep.Errors, e.String())
				}
				for _, w := range res.Warnings {
					rep.Warnings = append(rep.Warnings, w.String())
				}
				if err := printJSON(out, rep); err != nil {
					return err
				}
			} else {
				for _, w := range res.Warnings {
					fmt.Fprintln(out, "warning:", w)
				}
				for _, e := range res.Errors {
					fmt.Fprintln(out, e)
				}
			}
			if !res.Valid() {
				return &exitError{code: exitInvalid, err: errors.New(plural(len(res.Errors), "error") + " in " + path)}
			}
			if output != "json" {
				fmt.Fprintf(out, "ok: %d daemons: %s\n", len(res.Daemons), strings.Join(res.Names(), ", "))
			}
			return nil
		},
	}
	addOutputFlag(cmd, &output, textFormats)
	return cmd
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
