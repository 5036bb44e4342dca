package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The output formats, the same on every command (DESIGN 7): a command that
// prints a table takes table|wide|json|yaml, every other command text|json.
// The first is the default.
var (
	tableFormats = []string{"table", "wide", "json", "yaml"}
	textFormats  = []string{"text", "json"}
)

// outputValue is -o: refused when parsed, so a wrong format is a usage
// error (exit 2) before anything is looked at.
type outputValue struct {
	value   *string
	formats []string
}

func (o *outputValue) String() string { return *o.value }
func (o *outputValue) Type() string   { return strings.Join(o.formats, "|") }

func (o *outputValue) Set(s string) error {
	if !slices.Contains(o.formats, s) {
		return fmt.Errorf("must be %s", strings.Join(o.formats, ", "))
	}
	*o.value = s
	return nil
}

// addOutputFlag adds -o|--output to cmd, one of formats, into p.
func addOutputFlag(cmd *cobra.Command, p *string, formats []string) {
	*p = formats[0]
	cmd.Flags().VarP(&outputValue{value: p, formats: formats}, "output", "o", "output format")
}

// printJSON writes v as -o json prints every result: indented, one
// trailing newline.
func printJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
