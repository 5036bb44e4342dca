package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/yaml"

	"gjc.dev/reconciler/pkg/reconcile"
)

func newStatusCommand(g *globals) *cobra.Command {
	var output string
	var watch bool
	cmd := &cobra.Command{
		Use:   "status [NAME...]",
		Short: "Show each daemon: status.json merged with a live look at its record",
		RunE: func(cmd *cobra.Command, names []string) error {
			switch output {
			case "table", "json", "yaml":
			default:
				return &exitError{code: exitInvalid, err: fmt.Errorf("-o %q: must be table, json or yaml", output)}
			}
			agentDir, specPath, err := g.paths()
			if err != nil {
				return err
			}
			for _, n := range names {
				if err := checkNameArg(n); err != nil {
					return err
				}
			}
			show := func() error {
				st, err := view(agentDir, specPath, names)
				if err != nil {
					return &exitError{code: exitNotDone, err: err}
				}
				if err := unknownNames(st, names); err != nil {
					return err
				}
				return printStatus(cmd.OutOrStdout(), st, output)
			}
			if err := show(); err != nil || !watch {
				return err
			}
			return watchStatus(agentDir, show)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "table, json or yaml")
	cmd.Flags().BoolVar(&watch, "watch", false, "print again whenever status.json changes")
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

// watchStatus re-prints on every change of status.json, until interrupted.
func watchStatus(agentDir string, show func() error) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	defer w.Close()
	file := reconcile.StatusPath(agentDir)
	if err := w.Add(filepath.Dir(file)); err != nil {
		return &exitError{code: exitNotDone, err: fmt.Errorf("watching %s: %w", file, err)}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-w.Events:
			if ev.Name == file && ev.Op&(fsnotify.Create|fsnotify.Rename|fsnotify.Write) != 0 {
				if err := show(); err != nil {
					return err
				}
			}
		case err := <-w.Errors:
			return &exitError{code: exitNotDone, err: err}
		}
	}
}

func printStatus(w io.Writer, st *reconcile.Status, output string) error {
	switch output {
	case "json":
		data, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(st)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROVIDER\tDESIRED\tPHASE\tGEN\tPID\tREADY\tRESTARTS\tAGE\tREASON")
	for _, d := range st.Daemons {
		ready := "False"
		if meta.IsStatusConditionTrue(d.Conditions, reconcile.ConditionReady) && d.PID != 0 {
			ready = "True"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", d.Name, dash(d.Provider), dash(d.DesiredState), d.Phase,
			generation(d), pid(d.PID), ready, d.Restarts, age(d), dash(d.Reason))
	}
	if !st.SpecValid {
		printSpecInvalid(tw, st)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// After the table: tabwriter would align these with its columns.
	for _, p := range st.Problems {
		if _, err := fmt.Fprintln(w, "problem:", p); err != nil {
			return err
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func generation(d reconcile.DaemonStatus) string {
	switch {
	case d.Generation != nil && d.DesiredGeneration != nil && *d.Generation != *d.DesiredGeneration:
		return fmt.Sprintf("%d/%d", *d.Generation, *d.DesiredGeneration)
	case d.Generation != nil:
		return strconv.FormatInt(*d.Generation, 10)
	case d.DesiredGeneration != nil:
		return strconv.FormatInt(*d.DesiredGeneration, 10)
	}
	return "-"
}

func pid(p int) string {
	if p == 0 {
		return "-"
	}
	return strconv.Itoa(p)
}

func age(d reconcile.DaemonStatus) string {
	if d.StartedAt == nil || d.PID == 0 {
		return "-"
	}
	a := time.Since(d.StartedAt.Time)
	switch {
	case a < time.Minute:
		return fmt.Sprintf("%ds", int(a.Seconds()))
	case a < time.Hour:
		return fmt.Sprintf("%dm", int(a.Minutes()))
	case a < 48*time.Hour:
		return fmt.Sprintf("%dh", int(a.Hours()))
	}
	return fmt.Sprintf("%dd", int(a.Hours()/24))
}
