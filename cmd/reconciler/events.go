package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/linefile"
	"gjc.dev/reconciler/pkg/reconcile"
)

func newEventsCommand(g *globals) *cobra.Command {
	var follow bool
	var output string
	cmd := &cobra.Command{
		Use:   "events [NAME...]",
		Short: "Show the event history, oldest first: spawns, stops, exits, escalations, refusals, spec errors",
		Long: `Show the event history the reconciler keeps in sdk/reconciler/events.jsonl
(rotated at 1 MiB, two rotated files kept), oldest first. With names, only
their events; without, every event, the spec's included. -f keeps printing
events as they happen, until interrupted. -o json prints one JSON object a
line, in both modes.`,
		RunE: func(cmd *cobra.Command, names []string) error {
			paths := g.lookPaths
			if follow {
				paths = g.paths // follows an agent dir not made yet
			}
			agentDir, specPath, err := paths()
			if err != nil {
				return err
			}
			path := reconcile.EventsPath(agentDir)
			h, err := events.Read(path, names)
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			if _, err := lookNames(look(cmd, g, agentDir, specPath), names, func(n string) bool {
				return slices.ContainsFunc(h.Events, func(e events.Event) bool { return e.Name == n })
			}); err != nil {
				return err
			}
			p := &eventPrinter{w: cmd.OutOrStdout(), json: output == "json"}
			if !follow {
				p.history(h)
				warnSkipped(cmd.ErrOrStderr(), h.Skipped)
				if len(h.Events) == 0 {
					fmt.Fprintln(cmd.ErrOrStderr(), "no events")
				}
				return p.err
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			skipped := 0
			err = events.Follow(ctx, path, names, func(h events.History) {
				p.history(h)
				skipped = h.Skipped
			}, p.event, func() { skipped++ })
			warnSkipped(cmd.ErrOrStderr(), skipped)
			if err == nil {
				err = p.err
			}
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing events as they are recorded, until interrupted")
	addOutputFlag(cmd, &output, textFormats) // json: one object a line
	return cmd
}

func warnSkipped(w io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(w, "warning: %d line(s) of the event history skipped: not valid events\n", n)
	}
}

// eventPrinter prints events as a table with fixed columns (followed
// events line up with the history), or as JSON lines.
type eventPrinter struct {
	w      io.Writer
	json   bool
	header bool
	err    error
}

const eventColumns = "%-19s  %-7s  %-16s  %-18s  %s\n"

func (p *eventPrinter) history(h events.History) {
	if !p.json && !p.header {
		p.header = true
		p.printf(eventColumns, "TIME", "TYPE", "NAME", "REASON", "MESSAGE")
	}
	for _, e := range h.Events {
		p.event(e)
	}
}

func (p *eventPrinter) event(e events.Event) {
	if p.json {
		data, err := json.Marshal(e)
		if err != nil {
			p.err = err
			return
		}
		p.printf("%s\n", data)
		return
	}
	name := e.Name
	if name == "" {
		name = "-" // the loop as a whole: the spec
	}
	p.printf(eventColumns, e.Time.Local().Format(eventTimeLayout), e.Type, name, e.Reason, linefile.Printable(e.Message))
}

func (p *eventPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
