package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command a user can see has examples in its --help, and every
// example parses on a fresh tree: its command exists, its flags do and take
// the values given, its arguments are ones the command accepts.
func TestEveryCommandHasExamplesThatParse(t *testing.T) {
	root := newRootCommand(io.Discard, io.Discard)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return // the internal daemon: started by the reconciler, not by people
		}
		if c.Example == "" {
			t.Errorf("%s has no examples: add them to examples.go", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	for path, text := range examples {
		runs := 0
		for line := range strings.Lines(text) {
			line = strings.TrimSpace(line)
			if i := strings.Index(line, "<(reconciler "); i >= 0 {
				line = strings.TrimSuffix(line[i+2:], ")") // the command a shell runs for its output
			}
			if !strings.HasPrefix(line, "reconciler") {
				continue // a comment, or shell around the command
			}
			runs++
			args := strings.Fields(line)[1:]
			// What the shell does with the output is not the command's.
			if i := slices.IndexFunc(args, func(a string) bool { return a == ">" || a == "|" }); i >= 0 {
				args = args[:i]
			}
			fresh := newRootCommand(io.Discard, io.Discard)
			c, rest, err := fresh.Find(args)
			if err != nil {
				t.Errorf("%s: example %q: %v", path, line, err)
				continue
			}
			if c.CommandPath() != path && !strings.HasPrefix(c.CommandPath(), path+" ") {
				t.Errorf("example %q is under %s but runs %s", line, path, c.CommandPath())
			}
			if err := c.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", path, line, err)
				continue
			}
			if err := c.ValidateArgs(c.Flags().Args()); err != nil {
				t.Errorf("%s: example %q: %v", path, line, err)
			}
		}
		if runs == 0 {
			t.Errorf("%s: no example runs the command", path)
		}
	}
	if _, ok := examples["reconciler daemon"]; ok {
		t.Error("the internal daemon command has examples: people do not run it")
	}
}

// -o is the same flag everywhere: table|wide|json|yaml where a table is
// printed, text|json on every other command with a result.
func TestOutputFlagIsConsistent(t *testing.T) {
	root := newRootCommand(io.Discard, io.Discard)
	want := map[string]string{
		"reconciler status": "table|wide|json|yaml",
		"reconciler stop":   "text|json", "reconciler start": "text|json", "reconciler restart": "text|json",
		"reconciler gc": "text|json", "reconciler validate": "text|json", "reconciler version": "text|json",
		"reconciler events": "text|json", "reconciler inbox": "text|json", "reconciler doctor": "text|json",
		"reconciler ask": "text|json",
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		f := c.Flags().Lookup("output")
		switch w, ok := want[c.CommandPath()]; {
		case ok && f == nil:
			t.Errorf("%s has no -o", c.CommandPath())
		case ok && (f.Shorthand != "o" || f.Value.Type() != w || f.DefValue != strings.Split(w, "|")[0]):
			t.Errorf("%s: -%s %s (default %s), want -o %s", c.CommandPath(), f.Shorthand, f.Value.Type(), f.DefValue, w)
		case !ok && f != nil:
			t.Errorf("%s has an -o nobody expects: add it to this test", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// An example's agent dir or spec path under ~ is one the docs use too, so
// that --help and the quickstart send a newcomer to the same place.
func TestExamplePathsAreTheDocumentedOnes(t *testing.T) {
	var docs strings.Builder
	for _, p := range []string{"../../README.md", "../../docs/quickstart.md", "../../docs/operations.md", "../../docs/spec.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	for path, text := range examples {
		fields := strings.Fields(text)
		for i, f := range fields {
			if i == 0 || (fields[i-1] != "--agent-dir" && fields[i-1] != "--spec") {
				continue
			}
			if strings.HasPrefix(f, "~/") && !strings.Contains(docs.String(), f) {
				t.Errorf("%s: example path %s is in no doc (the docs use ~/.gjc/agent)", path, f)
			}
		}
	}
}
