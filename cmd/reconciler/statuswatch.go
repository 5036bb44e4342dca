package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/dirwatch"
	"gjc.dev/reconciler/pkg/reconcile"
)

// statusSource is where a status look comes from (view, today).
type statusSource func() (*reconcile.Status, error)

// watchResync is how often a watch looks without a file event: the look is
// live (a daemon killed while no loop runs changes no file), and a person
// reading a screen is served by a look every few seconds.
const watchResync = 2 * time.Second

// statusWatch is one `status -w`: what it printed, and where.
type statusWatch struct {
	out, errOut io.Writer
	output      string
	load        statusSource

	table     *table
	seen      []row
	notes     []string
	specValid bool
	lastErr   string
}

// watchStatus prints the status once, then what changes, until ctx ends
// (SIGINT, SIGTERM: exit 0). It follows status.json, also before the agent
// dir exists and across atomic replacements, and looks again every
// watchResync.
func watchStatus(ctx context.Context, out, errOut io.Writer, agentDir, output string, load statusSource) error {
	file := reconcile.StatusPath(agentDir)
	// Watching before the first look: a change between the two is not lost.
	dw, err := dirwatch.New()
	if err != nil {
		return &exitError{code: exitNotDone, err: fmt.Errorf("watching %s: %w", file, err)}
	}
	defer func() { _ = dw.Close() }()
	pw, err := dw.WatchPath(file)
	if err != nil {
		return &exitError{code: exitNotDone, err: fmt.Errorf("watching %s: %w", file, err)}
	}
	defer func() { _ = pw.Close() }()
	w := &statusWatch{out: out, errOut: errOut, output: output, load: load}
	st, err := load()
	if err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	if err := w.first(st); err != nil {
		return err
	}
	if what := waitingFor(agentDir, file); what != "" {
		fmt.Fprintf(errOut, "waiting for %s to appear\n", what)
	}
	tick := time.NewTicker(watchResync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-pw.Errors():
			return &exitError{code: exitNotDone, err: fmt.Errorf("watching %s: %w", file, err)}
		case <-pw.Changes():
		case <-tick.C:
		}
		if err := w.look(); err != nil {
			return err
		}
	}
}

// waitingFor names what a watch waits for, if anything: the agent dir, or
// the status file no loop has written yet.
func waitingFor(agentDir, file string) string {
	if _, err := os.Stat(agentDir); errors.Is(err, fs.ErrNotExist) {
		return "agent dir " + agentDir
	}
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return file + " (written by the reconcile loop or --once)"
	}
	return ""
}

// first prints the whole status.
func (w *statusWatch) first(st *reconcile.Status) error {
	rows := statusRows(st, w.wideRows(), time.Now())
	w.seen, w.notes, w.specValid = rows, statusNotes(st), st.SpecValid
	if w.document() {
		return w.printDocument(st)
	}
	w.table = newTable(header(w.output == "wide", inFleet(st)), rows)
	lines := []string{w.table.line(header(w.output == "wide", inFleet(st)))}
	for _, r := range rows {
		lines = append(lines, w.table.line(r.cells))
	}
	for _, n := range w.notes {
		lines = append(lines, n+"\n")
	}
	return w.write(strings.Join(lines, ""))
}

// look prints what changed since the last look. A look that fails is said
// once on stderr, and the watch goes on: a file being repaired is back at
// the next event.
func (w *statusWatch) look() error {
	st, err := w.load()
	if err != nil {
		if msg := err.Error(); msg != w.lastErr {
			w.lastErr = msg
			fmt.Fprintln(w.errOut, "error:", msg)
		}
		return nil
	}
	w.lastErr = ""
	rows := statusRows(st, w.wideRows(), time.Now())
	notes := statusNotes(st)
	changed, added := watchStep(w.seen, rows), newNotes(w.notes, notes)
	if again := specValidAgain(w.specValid, st.SpecValid); again != "" {
		added = append(added, again)
	}
	w.seen, w.notes, w.specValid = rows, notes, st.SpecValid
	if len(changed) == 0 && len(added) == 0 {
		return nil
	}
	if w.document() {
		return w.printDocument(st)
	}
	var b strings.Builder
	for _, r := range changed {
		b.WriteString(w.table.line(r.cells))
	}
	for _, n := range added {
		b.WriteString(n + "\n")
	}
	return w.write(b.String())
}

// wideRows: the rows compared are the wide ones unless the table is
// narrow, so a document is printed again when its message changes too.
func (w *statusWatch) wideRows() bool { return w.output != "table" }

// document: -o json and yaml print the whole status again on each change,
// a stream of documents.
func (w *statusWatch) document() bool { return w.output == "json" || w.output == "yaml" }

func (w *statusWatch) printDocument(st *reconcile.Status) error {
	if w.output == "yaml" {
		if err := w.write("---\n"); err != nil {
			return err
		}
	}
	if err := printStatus(w.out, st, w.output); err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	return nil
}

// write fails the watch when its reader is gone (a closed pipe).
func (w *statusWatch) write(s string) error {
	if _, err := io.WriteString(w.out, s); err != nil {
		return &exitError{code: exitNotDone, err: err}
	}
	return nil
}

// runStatusWatch is `status -w`. A name asked for is checked as without
// -w, unless the agent dir does not exist yet: then the watch waits for
// it, and for the name.
func runStatusWatch(cmd *cobra.Command, agentDir string, names []string, output string, load statusSource) error {
	if _, err := os.Stat(agentDir); err == nil {
		st, err := load()
		if err != nil {
			return err
		}
		if err := unknownNames(st, names); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return watchStatus(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), agentDir, output, load)
}
