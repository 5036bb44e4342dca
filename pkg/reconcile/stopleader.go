package reconcile

import (
	"context"
	"fmt"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// leaderSlack is how long the leading machine's loop may take, beyond the
// stop's own timeouts, to see a fleet-wide hold and begin its stop: its
// watch pokes it at once, but a pass may be under way.
const leaderSlack = 10 * time.Second

// awaitLeaderStop waits, after a stop here held name on every machine,
// for the machine that leads it (leader) to stop its owner: until the
// record shows none running, within the stop's timeouts and leaderSlack.
// It sends nothing itself: the owner is the leader's to stop (fenced by
// its election), and the hold stays whatever the answer.
func (r *Reconciler) awaitLeaderStop(ctx context.Context, name, leader string, o StopOptions) (ok bool, msg string) {
	limit := o.Graceful + o.Kill + leaderSlack
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		obs := r.store.Observe(name)
		cls := obs.Classify(ownDesired(obs.Record))
		if cls.Class == ownership.ClassStopped || cls.Class == ownership.ClassAbsent {
			return true, fmt.Sprintf("held stopped on every machine; machine %s, which leads %s, stopped it", leader, name)
		}
		select {
		case <-ctx.Done():
			return false, fmt.Sprintf("held stopped on every machine, but machine %s, which leads %s, has not stopped it within %v (%s); see reconciler status there", leader, name, limit, cls.Message)
		case <-tick.C:
		}
	}
}
