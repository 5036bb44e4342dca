package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"gjc.dev/reconciler/pkg/linefile"
	"gjc.dev/reconciler/pkg/reconcile"
)

// printRelay is describe's Relay section: the relay's health as the live
// owner last published it, or why there is none.
func printRelay(out io.Writer, r *reconcile.RelayStatus, now time.Time) {
	fmt.Fprintln(out, "Relay:")
	if r == nil {
		fmt.Fprintln(out, "  none reported (no live owner, no relay, or it has not reported yet)")
		return
	}
	safe := linefile.Printable
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, "  "+format+"\n", args...) }
	outbox := fmt.Sprintf("%d pending", r.Pending)
	if r.OldestPendingAt != nil {
		outbox += fmt.Sprintf(", the oldest seen %s ago", since(r.OldestPendingAt.Time, now))
	}
	p("Outbox:\t%s", outbox)
	p("Failed:\t%d (in failed/)", r.Failed)
	blocked := "no"
	if b := r.Blocked; b != nil {
		blocked = safe(b.Reason) + ": " + safe(b.Message) + " (the backlog is kept; it retries by itself)"
	}
	p("Blocked:\t%s", blocked)
	if t := r.RateLimitedUntil; t != nil && t.After(now) {
		p("Rate limited:\tuntil %s (%s from now)", t.Local().Format(eventTimeLayout), duration(t.Sub(now)))
	}
	last := "never"
	if r.LastPostAt != nil {
		last = since(r.LastPostAt.Time, now) + " ago"
	}
	p("Last post:\t%s", last)
	posted := fmt.Sprintf("%d parts since the daemon started", r.Posted)
	if r.Posted > 0 {
		posted += fmt.Sprintf(", %.3fs each on average", r.PostSeconds/float64(r.Posted))
	}
	p("Posted:\t%s", posted)
	p("Rate-limit waits:\t%d", r.RateLimitWaits)
	p("Filtered:\t%d since the daemon started (left out by the spec's verbosity: moved to sent/ unposted)", r.Filtered)
	p("Inbox:\t%s", inboxLine(r.Inbox, now))
	p("Asks:\t%s", askLine(r.Asks))
	_ = tw.Flush()
}

// inboxLine is describe's summary of what came back: the ignored count
// split by reason, so a reply from the wrong account shows as
// "unauthorized" beside the bot's own echoes ("self").
func inboxLine(in *reconcile.InboxStatus, now time.Time) string {
	if in == nil {
		return "nothing came back since the daemon started"
	}
	s := fmt.Sprintf("%d landed, %d duplicates, %d ignored", in.Landed, in.Duplicates, in.Ignored)
	if in.Waiting > 0 {
		// A reply that could not land (a full disk) is tried again on its
		// own: say so, or it would look lost.
		s = fmt.Sprintf("%d waiting to land (tried again on their own), %s", in.Waiting, s)
	}
	if len(in.IgnoredBy) > 0 {
		var by []string
		for _, r := range slices.Sorted(maps.Keys(in.IgnoredBy)) {
			by = append(by, fmt.Sprintf("%s %d", linefile.Printable(r), in.IgnoredBy[r]))
		}
		s += " (" + strings.Join(by, ", ") + ")"
	}
	if in.LastAt != nil {
		s += "; the latest reply sent " + since(in.LastAt.Time, now) + " ago, landed " + lagCell(time.Duration(in.LagSeconds*float64(time.Second))) + " after"
	}
	if in.Missed > 0 {
		s += fmt.Sprintf("; %d missed by the live connection (found by the history sweep, which reconnected it)", in.Missed)
	}
	return s
}

// askLine is describe's count of the asks: those waiting now and, since
// the daemon started, how they ended and the clicks refused.
func askLine(a *reconcile.AskStatus) string {
	if a == nil {
		return "none since the daemon started"
	}
	return fmt.Sprintf("%d open, %d decided, %d expired since the daemon started; %d clicks refused (by people who may not decide)", a.Open, a.Decided, a.Expired, a.Refused)
}
