package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/yaml"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// statusColumns are the table's columns (DESIGN 7); wideColumns are what
// -o wide adds.
var (
	statusColumns = []string{"NAME", "PROVIDER", "DESIRED", "PHASE", "GEN", "PID", "READY", "RESTARTS", "AGE", "REASON"}
	wideColumns   = []string{"OUTBOX", "FAILED", "FILTERED", "LAST-POST", "IN-LAG", "MISSED", "ASKS", "MESSAGE"}
)

// ageColumn is AGE's place in a row: computed when printed, it is no
// change of its own (see watchStep).
const ageColumn = 8

// maxMessage bounds the MESSAGE column: a crash loop's message carries a
// log tail, and one long cell would push every row off the screen. -o json
// has the whole text.
const maxMessage = 80

// row is one daemon's line of the table.
type row struct {
	name  string
	cells []string
}

// header is the table's first line.
func header(wide, fleet bool) []string {
	h := append([]string{}, statusColumns...)
	if fleet {
		h = append(h, "MACHINE")
	}
	if wide {
		h = append(h, wideColumns...)
	}
	return h
}

// inFleet reports whether st is a fleet's: some owner names its machine.
// The table then says which machine runs each daemon.
func inFleet(st *reconcile.Status) bool {
	for _, d := range st.Daemons {
		if d.Machine != "" {
			return true
		}
	}
	return false
}

// statusRows renders each daemon as a row, at now.
func statusRows(st *reconcile.Status, wide bool, now time.Time) []row {
	rows := make([]row, 0, len(st.Daemons))
	fleet := inFleet(st)
	for _, d := range st.Daemons {
		ready := "False"
		if meta.IsStatusConditionTrue(d.Conditions, reconcile.ConditionReady) && d.PID != 0 {
			ready = "True"
		}
		cells := []string{d.Name, dash(d.Provider), dash(d.DesiredState), string(d.Phase),
			generation(d), pid(d.PID), ready, strconv.Itoa(d.Restarts), age(d, now), dash(d.Reason)}
		if fleet {
			cells = append(cells, dash(d.Machine))
		}
		if wide {
			cells = append(cells, relayCells(d.Relay, now)...)
			cells = append(cells, dash(truncate(wideMessage(d), maxMessage)))
		}
		// status.json is untrusted and a message may quote a remote
		// server: nothing in a cell may drive the terminal.
		for i := range cells {
			cells[i] = ownership.OneLine(cells[i])
		}
		rows = append(rows, row{name: d.Name, cells: cells})
	}
	return rows
}

// relayCells are OUTBOX (pending), FAILED, FILTERED (left out by the
// verbosity since the daemon started), LAST-POST (the age of the last
// post), IN-LAG (the latest landed reply's inbound lag: its service
// timestamp to its landing), MISSED (replies the history sweep found
// that the live connection had not delivered) and ASKS (askCell): "-"
// while no relay has reported, or no reply landed, never a zero nobody
// measured.
func relayCells(r *reconcile.RelayStatus, now time.Time) []string {
	if r == nil {
		return []string{"-", "-", "-", "-", "-", "-", "-"}
	}
	last := "-"
	if r.LastPostAt != nil {
		last = duration(now.Sub(r.LastPostAt.Time))
	}
	lag, missed := "-", "0"
	if in := r.Inbox; in != nil {
		if in.Landed > 0 {
			lag = lagCell(time.Duration(in.LagSeconds * float64(time.Second)))
		}
		missed = strconv.FormatInt(in.Missed, 10)
	}
	return []string{strconv.FormatInt(r.Pending, 10), strconv.FormatInt(r.Failed, 10), strconv.FormatInt(r.Filtered, 10), last, lag, missed, askCell(r.Asks)}
}

// askCell is ASKS: open/decided/expired/refused, the asks waiting now and,
// since the daemon started, those decided, those expired and the clicks
// refused; "0/0/0/0" before the first.
func askCell(a *reconcile.AskStatus) string {
	if a == nil {
		a = &reconcile.AskStatus{}
	}
	return fmt.Sprintf("%d/%d/%d/%d", a.Open, a.Decided, a.Expired, a.Refused)
}

// lagCell is an inbound lag: tenths of a second under a minute (a reply
// lands in well under one), else as AGE is.
func lagCell(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", max(0, d.Seconds()))
	}
	return duration(d)
}

// wideMessage is MESSAGE: the relay's block message while it is paused
// (the why of a connected daemon that posts nothing), else message.
func wideMessage(d reconcile.DaemonStatus) string {
	if r := d.Relay; r != nil && r.Blocked != nil && r.Blocked.Message != "" {
		return r.Blocked.Message
	}
	return message(d)
}

// message is the daemon's status message, else its Ready condition's.
func message(d reconcile.DaemonStatus) string {
	if d.Message != "" {
		return d.Message
	}
	if c := meta.FindStatusCondition(d.Conditions, reconcile.ConditionReady); c != nil {
		return c.Message
	}
	return ""
}

// truncate cuts s to at most n runes, on one line, marking the cut.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}

// statusNotes are the lines after the table: the spec's state and the
// problems of the files read.
func statusNotes(st *reconcile.Status) []string {
	var notes []string
	if !st.SpecValid {
		var b strings.Builder
		printSpecInvalid(&b, st)
		for l := range strings.Lines(b.String()) {
			if l = strings.TrimSuffix(l, "\n"); l != "" {
				notes = append(notes, l)
			}
		}
	}
	for _, p := range st.Problems {
		notes = append(notes, "problem: "+p.String())
	}
	// As the cells: read from an untrusted status.json.
	for i := range notes {
		notes[i] = ownership.OneLine(notes[i])
	}
	return notes
}

func printStatus(w io.Writer, st *reconcile.Status, output string) error {
	switch output {
	case "json":
		return printJSON(w, st)
	case "yaml":
		data, err := yaml.Marshal(st)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	wide := output == "wide"
	rows := statusRows(st, wide, time.Now())
	t := newTable(header(wide, inFleet(st)), rows)
	var b strings.Builder
	b.WriteString(t.line(header(wide, inFleet(st))))
	for _, r := range rows {
		b.WriteString(t.line(r.cells))
	}
	if notes := statusNotes(st); len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// table aligns columns: each as wide as its widest cell so far. A watch
// keeps one table, so its later rows line up under the header printed
// first (a cell wider than any before widens its column from then on).
type table struct{ widths []int }

func newTable(head []string, rows []row) *table {
	t := &table{widths: make([]int, len(head))}
	t.fit(head)
	for _, r := range rows {
		t.fit(r.cells)
	}
	return t
}

func (t *table) fit(cells []string) {
	for i, c := range cells {
		if i < len(t.widths) {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
}

// line renders cells, two spaces between columns, the last one unpadded.
func (t *table) line(cells []string) string {
	t.fit(cells)
	var b strings.Builder
	for i, c := range cells {
		b.WriteString(c)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", t.widths[i]-utf8.RuneCountInString(c)+2))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func generation(d reconcile.DaemonStatus) string {
	running, hasRunning := d.Generation.Get()
	desired, hasDesired := d.DesiredGeneration.Get()
	switch {
	case hasRunning && hasDesired && running != desired:
		return running.String() + "/" + desired.String()
	case hasRunning:
		return running.String()
	case hasDesired:
		return desired.String()
	}
	return "-"
}

func pid(p int) string {
	if p == 0 {
		return "-"
	}
	return strconv.Itoa(p)
}

func age(d reconcile.DaemonStatus, now time.Time) string {
	if d.StartedAt == nil || d.PID == 0 {
		return "-"
	}
	return duration(now.Sub(d.StartedAt.Time))
}

// duration is kubectl's short form: 42s, 5m, 3h, 2d.
func duration(a time.Duration) string {
	switch {
	case a < 0:
		return "0s"
	case a < time.Minute:
		return fmt.Sprintf("%ds", int(a.Seconds()))
	case a < time.Hour:
		return fmt.Sprintf("%dm", int(a.Minutes()))
	case a < 48*time.Hour:
		return fmt.Sprintf("%dh", int(a.Hours()))
	}
	return fmt.Sprintf("%dd", int(a.Hours()/24))
}
