package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/daemonlog"
	"gjc.dev/reconciler/pkg/events"
	"gjc.dev/reconciler/pkg/linefile"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// What describe shows of the history and the log.
const (
	describeEvents  = 20
	describeLogTail = 10
)

func newDescribeCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "describe NAME...",
		Short: "Show everything about daemons: conditions, the record, how the last one exited, recent events, the log's tail",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, names []string) error {
			agentDir, specPath, err := g.lookPaths()
			if err != nil {
				return err
			}
			// The record is the chosen backend's: in a fleet, etcd's, not
			// a file of this machine.
			store, _, err := g.fleet.open(agentDir, logr.Discard())
			if err != nil {
				return &exitError{code: exitNotDone, err: err}
			}
			defer store.Close()
			record := func(name string) ownership.Record { return store.Observe(name).Record }
			ds, err := gatherDescriptions(look(cmd, g, agentDir, specPath), record, agentDir, names)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for i, d := range ds {
				if i > 0 {
					fmt.Fprintln(w)
				}
				if err := printDescription(w, d, time.Now()); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// description is everything describe shows of one name.
type description struct {
	Status reconcile.DaemonStatus
	Record ownership.Record
	// Events are the name's last describeEvents; Earlier counts the rest.
	Events    []events.Event
	Earlier   int
	EventsErr error
	Log       []linefile.Line
	LogErr    error
}

// gatherDescriptions reads, and only reads, what describe shows of names:
// the live look (as status), each record (from the store), the event
// history and the log.
func gatherDescriptions(look func([]string) (*reconcile.Status, error), record func(name string) ownership.Record, agentDir string, names []string) ([]description, error) {
	h, herr := events.Read(reconcile.EventsPath(agentDir), names)
	has := func(n string) bool {
		for _, e := range h.Events {
			if e.Name == n {
				return true
			}
		}
		return false
	}
	st, err := lookNames(look, names, has)
	if err != nil {
		return nil, err
	}
	var out []description
	for _, n := range names {
		d := description{EventsErr: herr}
		d.Status, _ = statusOf(st, n)
		d.Status.Name = n
		d.Record = record(n)
		for _, e := range h.Events {
			if e.Name == n {
				d.Events = append(d.Events, e)
			}
		}
		if k := len(d.Events) - describeEvents; k > 0 {
			d.Events, d.Earlier = d.Events[k:], k
		}
		_, d.LogErr = daemonlog.Read(agentDir, n, describeLogTail, func(l linefile.Line) { d.Log = append(d.Log, l) })
		out = append(out, d)
	}
	return out, nil
}

// printDescription prints one description, kubectl describe's way:
// fields, then sections. Every text that came from a file is made safe to
// print.
func printDescription(out io.Writer, d description, now time.Time) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	s := d.Status
	p := func(format string, args ...any) { fmt.Fprintf(tw, format+"\n", args...) }
	safe := linefile.Printable
	p("Name:\t%s", s.Name)
	p("Provider:\t%s", dash(s.Provider))
	desired := dash(s.DesiredState)
	if g, ok := s.DesiredGeneration.Get(); ok {
		desired += ", generation " + g.String()
	}
	p("Desired:\t%s", desired)
	phase := dash(string(s.Phase))
	if s.Reason != "" {
		phase += " (" + s.Reason + ")"
	}
	p("Phase:\t%s", phase)
	if s.Message != "" {
		p("Message:\t%s", safe(s.Message))
	}
	p("PID:\t%s", pid(s.PID))
	if s.Machine != "" {
		p("Machine:\t%s", safe(s.Machine))
	}
	if e := s.Election; e != nil {
		p("Election:\t%s", electionLine(e, safe))
	}
	if l := s.Logins; l != nil {
		p("Logins:\t%s", loginsLine(l, now))
	}
	p("Restarts:\t%d", s.Restarts)
	if ex := s.LastExit; ex != nil {
		p("Last exit:\t%s (%s ago)", safe(ex.Message), since(ex.At.Time, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(out, "Conditions:")
	if len(s.Conditions) == 0 {
		fmt.Fprintln(out, "  none (no pass has looked at it)")
	} else {
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tAGE\tMESSAGE")
		for _, c := range s.Conditions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", safe(c.Type), c.Status, safe(c.Reason), since(c.LastTransitionTime.Time, now), dash(safe(c.Message)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	fmt.Fprintln(out, "Record (state.json):")
	printRecord(out, d.Record, now)
	printRelay(out, s.Relay, now) // describerelay.go

	fmt.Fprintln(out, "Events:")
	switch {
	case d.EventsErr != nil:
		fmt.Fprintf(out, "  cannot be read: %s\n", safe(d.EventsErr.Error()))
	case len(d.Events) == 0:
		fmt.Fprintln(out, "  none")
	default:
		if d.Earlier > 0 {
			fmt.Fprintf(out, "  (%d earlier: reconciler events %s)\n", d.Earlier, s.Name)
		}
		tw = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  AGE\tTYPE\tREASON\tMESSAGE")
		for _, e := range d.Events {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", since(e.Time, now), e.Type, e.Reason, safe(e.Message))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	fmt.Fprintf(out, "daemon.log (last %d lines; reconciler logs %s):\n", describeLogTail, s.Name)
	r := daemonlog.Renderer{Loc: time.Local, Omit: map[string]string{"daemon": s.Name}}
	switch {
	case d.LogErr != nil:
		fmt.Fprintf(out, "  cannot be read: %s\n", safe(d.LogErr.Error()))
	case len(d.Log) == 0:
		fmt.Fprintln(out, "  empty")
	}
	for _, l := range d.Log {
		fmt.Fprintf(out, "  %s\n", r.Render(l))
	}
	return nil
}

// printRecord prints what the daemon's record says, or why it cannot be
// trusted: the fields a person reads first when a daemon misbehaves.
func printRecord(out io.Writer, rec ownership.Record, now time.Time) {
	safe := linefile.Printable
	switch {
	case errors.Is(rec.Malformed, ownership.ErrStoreUnreachable):
		fmt.Fprintf(out, "  unread: %s\n", safe(rec.Malformed.Error()))
		return
	case rec.Malformed != nil:
		fmt.Fprintf(out, "  malformed, not trusted: %s\n", safe(rec.Malformed.Error()))
		return
	case rec.State == nil:
		fmt.Fprintln(out, "  none")
		return
	}
	st := rec.State
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, "  "+format+"\n", args...) }
	p("Owner ID:\t%s", safe(st.OwnerID))
	p("PID:\t%d", st.PID)
	gen := "none (a legacy record)"
	if g, ok := st.Generation.Get(); ok {
		gen = g.String()
	}
	p("Generation:\t%s", gen)
	p("Incarnation:\t%s", safe(st.Incarnation))
	started := time.UnixMilli(st.StartedAt)
	p("Started:\t%s (%s ago)", started.Local().Format(eventTimeLayout), since(started, now))
	p("Heartbeat:\t%s ago", since(time.UnixMilli(st.HeartbeatAt), now))
	transport := "healthy"
	if !st.TransportHealthy {
		transport = "unhealthy"
		if st.TransportError != "" {
			transport += ": " + safe(st.TransportError)
		}
	}
	p("Transport:\t%s", transport)
	if st.StoppedAt != nil {
		stopped := time.UnixMilli(*st.StoppedAt)
		p("Released:\t%s (%s ago)", stopped.Local().Format(eventTimeLayout), since(stopped, now))
	}
	if t := st.Terminated; t != nil {
		p("Terminated:\t%s: %s", safe(t.Reason), safe(t.Message))
	}
	_ = tw.Flush()
}

// electionLine says who leads a fleet's name, as seen from this machine.
func electionLine(e *reconcile.Election, safe func(string) string) string {
	var line string
	switch {
	case e.Error != "":
		return "unknown: " + safe(e.Error)
	case e.Leader == "":
		line = "no machine leads it yet"
	case e.Leader == e.Self:
		line = "led by " + safe(e.Leader) + " (this machine): it spawns and stops this daemon"
	default:
		line = "led by " + safe(e.Leader) + "; this machine (" + safe(e.Self) + ") stands by"
	}
	return line
}

// loginsLine is what describe says of the service's count of logins: a
// count from a window that has ended is history, not today's figure.
func loginsLine(l *reconcile.LoginsStatus, now time.Time) string {
	if l.ResetAt == nil || !now.Before(l.ResetAt.Time) {
		return fmt.Sprintf("%d of %d in a window that has ended; not read since", l.Used, l.Limit)
	}
	return fmt.Sprintf("%d of %d in the service's window, which resets in %s", l.Used, l.Limit, duration(l.ResetAt.Sub(now)))
}
