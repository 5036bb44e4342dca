package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/linefile"
)

// errDecided ends the inbox follow once the decision is in hand.
var errDecided = errors.New("decided")

// waitDecision waits until deadline, or until ctx is done, for the
// decision of ask m in the inbox of dirs, and reports whether one
// landed. The inbox is the one place a decision is known durably (the
// daemon lands it before it answers the click), and the place a fleet
// copies decisions into on every machine: watching it needs no loop and
// no service, so it is the one path, with or without a loop running.
func waitDecision(ctx context.Context, dirs bus.Dirs, m bus.Message, deadline time.Time, resync time.Duration, skipped func(path, reason string)) (bus.InboxMessage, bool, error) {
	r := bus.NewInboxReader(dirs, m.Session, skipped)
	var d bus.InboxMessage
	found := func(msgs []bus.InboxMessage) error {
		var ok bool
		if d, ok = decisionOf(msgs, m.ID); ok {
			return errDecided
		}
		return nil
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	err := bus.FollowInbox(wctx, r, resync, found)
	if errors.Is(err, errDecided) {
		return d, true, nil
	}
	if err != nil {
		return bus.InboxMessage{}, false, err
	}
	// One last read: a verdict that landed as the deadline passed, before
	// the watch woke the follower, is still the answer.
	msgs, _, err := r.Scan()
	if err != nil {
		return bus.InboxMessage{}, false, err
	}
	if errors.Is(found(msgs), errDecided) {
		return d, true, nil
	}
	return bus.InboxMessage{}, false, nil
}

// decisionOf is the decision of ask id among msgs, if one is there. An ask
// is decided once (its decision's file is named by its id), so the first
// is the only one.
func decisionOf(msgs []bus.InboxMessage, id string) (bus.InboxMessage, bool) {
	for _, m := range msgs {
		if m.IsDecision() && m.Ask == id {
			return m, true
		}
	}
	return bus.InboxMessage{}, false
}

// printDecision prints d as ask --wait does: its choice alone (nothing on
// expiry), or the whole decision as one JSON line; an expiry is exit 5.
func printDecision(cmd *cobra.Command, d bus.InboxMessage, asJSON bool) error {
	if asJSON {
		p := &inboxPrinter{w: bufio.NewWriter(cmd.OutOrStdout()), json: true}
		if err := p.print([]bus.InboxMessage{d}); err != nil {
			return &exitError{code: exitNotDone, err: err}
		}
	}
	if d.Choice == bus.ChoiceExpired {
		return &exitError{code: exitNoDecision, err: fmt.Errorf("ask %s expired: nobody decided in time", d.Ask)}
	}
	if !asJSON {
		// The choice is one of the ask's labels, which hold no control
		// characters; the file is the daemon's, so it is made safe anyway.
		if _, err := fmt.Fprintln(cmd.OutOrStdout(), linefile.Printable(d.Choice)); err != nil {
			return &exitError{code: exitNotDone, err: err}
		}
	}
	return nil
}
