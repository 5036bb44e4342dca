package main

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// -o wide adds OUTBOX, FAILED, FILTERED, LAST-POST, IN-LAG, MISSED, ASKS and MESSAGE. With
// no relay reporting, the outbox columns are unknown ("-"), never a zero.
func TestWideRows(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	started := metav1.NewTime(now.Add(-90 * time.Second))
	posted := metav1.NewTime(now.Add(-3 * time.Minute))
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct {
		what string
		d    reconcile.DaemonStatus
		want []string // the wide columns
	}{
		{"no relay yet", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning, PID: 7, StartedAt: &started, Message: "healthy"},
			[]string{"-", "-", "-", "-", "-", "-", "-", "healthy"}},
		{"a relay that never posted", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning, Relay: &reconcile.RelayStatus{Pending: 0, Failed: 0}},
			[]string{"0", "0", "0", "-", "-", "0", "0/0/0/0", "-"}},
		{"a relay's figures", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning, Relay: &reconcile.RelayStatus{Pending: 3, Failed: 1, Filtered: 5, LastPostAt: &posted}, Message: "line one\nline two"},
			[]string{"3", "1", "5", "3m", "-", "0", "0/0/0/0", "line one line two"}},
		{"replies came back, one missed by the live connection", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning,
			Relay: &reconcile.RelayStatus{Inbox: &reconcile.InboxStatus{Landed: 4, Missed: 1, LagSeconds: 0.35}}},
			[]string{"0", "0", "0", "-", "0.3s", "1", "0/0/0/0", "-"}},
		{"a reply found minutes late", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning,
			Relay: &reconcile.RelayStatus{Inbox: &reconcile.InboxStatus{Landed: 1, Missed: 1, LagSeconds: 300}}},
			[]string{"0", "0", "0", "-", "5m", "1", "0/0/0/0", "-"}},
		{"asks open, decided, expired and clicks refused", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning,
			Relay: &reconcile.RelayStatus{Asks: &reconcile.AskStatus{Open: 2, Decided: 5, Expired: 1, Refused: 3}}},
			[]string{"0", "0", "0", "-", "-", "0", "2/5/1/3", "-"}},
		{"a blocked relay's message", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning, PID: 7, Reason: "Ready", Message: "healthy",
			Relay: &reconcile.RelayStatus{Pending: 12, Failed: 0, LastPostAt: &posted, Blocked: &ownership.RelayBlock{Reason: "RelayBlocked", Message: "403 Missing Access\x1b[2J"}}},
			[]string{"12", "0", "0", "3m", "-", "0", "0/0/0/0", "403 Missing Access [2J"}},
		{"the Ready condition's message when the status has none", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseStarting, Generation: spec.Generation(2).Opt(),
			Conditions: []metav1.Condition{{Type: reconcile.ConditionReady, Status: metav1.ConditionFalse, Message: "waiting"}}},
			[]string{"-", "-", "-", "-", "-", "-", "-", "waiting"}},
		{"a long message is cut", reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseCrashLoopBackOff, Message: long},
			[]string{"-", "-", "-", "-", "-", "-", "-", strings.Repeat("word ", 15) + "wo..."}},
	} {
		rows := statusRows(&reconcile.Status{Daemons: []reconcile.DaemonStatus{tc.d}}, true, now)
		if len(rows) != 1 || len(rows[0].cells) != len(statusColumns)+len(wideColumns) {
			t.Fatalf("%s: rows %v", tc.what, rows)
		}
		if got := rows[0].cells[len(statusColumns):]; !slices.Equal(got, tc.want) {
			t.Errorf("%s: wide columns %q, want %q", tc.what, got, tc.want)
		}
		if n := len([]rune(rows[0].cells[len(rows[0].cells)-1])); n > maxMessage {
			t.Errorf("%s: MESSAGE of %d runes, over %d", tc.what, n, maxMessage)
		}
		narrow := statusRows(&reconcile.Status{Daemons: []reconcile.DaemonStatus{tc.d}}, false, now)
		if len(narrow[0].cells) != len(statusColumns) {
			t.Errorf("%s: the table without wide has %d cells", tc.what, len(narrow[0].cells))
		}
	}
	d := reconcile.DaemonStatus{Name: "a", Phase: reconcile.PhaseRunning, PID: 7, StartedAt: &started}
	if got := statusRows(&reconcile.Status{Daemons: []reconcile.DaemonStatus{d}}, false, now)[0].cells[ageColumn]; got != "1m" {
		t.Errorf("AGE of a daemon started 90s ago: %q, want 1m", got)
	}
}

// status.json is an untrusted file, and a message can carry a remote
// server's text: no cell of the table sends a control character (an
// escape sequence) to the terminal.
func TestRowsArePrintable(t *testing.T) {
	d := reconcile.DaemonStatus{Name: "a", Provider: "discord\x1b[8m", Phase: reconcile.PhaseRunning,
		Reason: "Bad\x1b]0;pwned\x07", Message: "transport down: \x1b[2J\u009b31mhi"}
	for _, wide := range []bool{false, true} {
		for _, cell := range statusRows(&reconcile.Status{Daemons: []reconcile.DaemonStatus{d}}, wide, time.Now())[0].cells {
			if strings.ContainsFunc(cell, unicode.IsControl) {
				t.Errorf("wide=%v: cell %q holds a control character", wide, cell)
			}
		}
	}
}

// The notes under the table come from the same untrusted file.
func TestNotesArePrintable(t *testing.T) {
	st := &reconcile.Status{SpecErrors: []string{"x"},
		Keeping:  &reconcile.SpecKeeping{LastGoodProblem: "bad\x1b]0;pwned\x07", ActingOn: []string{"a\x1b[2J"}},
		Problems: []reconcile.Problem{{File: "f\x1b[8m", Entry: "e", Message: "m\u009b31m"}}}
	for _, n := range statusNotes(st) {
		if strings.ContainsFunc(n, unicode.IsControl) {
			t.Errorf("note %q holds a control character", n)
		}
	}
}

// A watch's later rows line up under the header it printed first.
func TestTableKeepsItsColumns(t *testing.T) {
	tb := newTable([]string{"NAME", "PHASE", "AGE"}, []row{{name: "slack", cells: []string{"slack", "Running", "5s"}}})
	head := tb.line([]string{"NAME", "PHASE", "AGE"})
	later := tb.line([]string{"a", "Stopped", "-"})
	if strings.Index(head, "PHASE") != strings.Index(later, "Stopped") || strings.Index(head, "AGE") != strings.Index(later, "-") {
		t.Errorf("columns moved:\n%s%s", head, later)
	}
	if strings.HasSuffix(strings.TrimSuffix(later, "\n"), " ") {
		t.Errorf("the last cell is padded: %q", later)
	}
}
