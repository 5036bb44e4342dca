package main

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// describe shows the relay's health in a section of its own: the backlog
// and its age, failures, the block and its message (made safe to print),
// a rate-limit wait still running, the last post and the counters; and
// says so when no relay has reported.
func TestDescribeShowsTheRelay(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }
	d := description{Status: reconcile.DaemonStatus{Name: "bot", Phase: reconcile.PhaseRunning, PID: 7, Reason: "ChannelUnavailable",
		Relay: &reconcile.RelayStatus{Pending: 4, OldestPendingAt: at(-3 * time.Minute), Failed: 2,
			Blocked:          &ownership.RelayBlock{Reason: "ChannelUnavailable", Message: "channel C1 not found\x1b[2J"},
			RateLimitedUntil: at(30 * time.Second), LastPostAt: at(-time.Hour), Posted: 8, PostSeconds: 2, RateLimitWaits: 3, Filtered: 6,
			Inbox: &reconcile.InboxStatus{Landed: 5, Duplicates: 1, Ignored: 9, IgnoredBy: map[string]int64{"unauthorized": 2, "self": 7}, LastAt: at(-2 * time.Minute)},
			Asks:  &reconcile.AskStatus{Open: 1, Decided: 5, Expired: 2, Refused: 3}}}}
	var b strings.Builder
	if err := printDescription(&b, d, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, section, ok := strings.Cut(out, "\nRelay:\n")
	if !ok {
		t.Fatalf("no Relay section:\n%s", out)
	}
	section, _, _ = strings.Cut(section, "\nEvents:")
	for _, want := range []string{"4 pending, the oldest seen 3m ago", "Failed:", "2 (in failed/)", "ChannelUnavailable: channel C1 not found",
		"Rate limited:", "(30s from now)", "Last post:", "1h ago", "8 parts since the daemon started, 0.250s each on average", "Rate-limit waits:", "3",
		"Filtered:", "6 since the daemon started (left out by the spec's verbosity: moved to sent/ unposted)",
		"Inbox:", "5 landed, 1 duplicates, 9 ignored (self 7, unauthorized 2); the latest reply sent 2m ago",
		"Asks:", "1 open, 5 decided, 2 expired since the daemon started; 3 clicks refused (by people who may not decide)"} {
		if !strings.Contains(section, want) {
			t.Errorf("Relay section lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("an escape sequence from the record reached the terminal")
	}

	b.Reset()
	d.Status.Relay = nil
	if err := printDescription(&b, d, now); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Relay:\n  none reported") {
		t.Errorf("without a relay:\n%s", b.String())
	}
}

// A reply that could not land yet is named first on the Inbox line: the
// counts since the start would not show it.
func TestInboxLineSaysWhatWaits(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		in   reconcile.InboxStatus
		want string
	}{
		{reconcile.InboxStatus{Landed: 2, Waiting: 1}, "1 waiting to land (tried again on their own), 2 landed, 0 duplicates, 0 ignored"},
		{reconcile.InboxStatus{Landed: 2}, "2 landed, 0 duplicates, 0 ignored"},
	} {
		if got := inboxLine(&c.in, now); got != c.want {
			t.Errorf("inboxLine(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
