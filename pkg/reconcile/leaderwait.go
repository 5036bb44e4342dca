package reconcile

import (
	"context"
	"fmt"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// leaderSlack is how long the leading machine's loop may take, beyond the
// command's own timeouts, to see a hold set or let go of fleet-wide and
// act on it: its watch pokes it at once, but a pass may be under way.
const leaderSlack = 10 * time.Second

// AwaitLeaders finishes the commands of results that wait for the machine
// that leads their name to act (a stop or a start of a fleet's hold), all
// at once. The caller holds neither the pass lock nor any name: such a
// wait lasts up to a stop's timeouts and a lease, and this machine's loop
// goes on meanwhile (its passes, its status, and its own look at the
// name, which may find this machine leading it by then).
func (r *Reconciler) AwaitLeaders(ctx context.Context, results []OperateResult) {
	var wg sync.WaitGroup
	for i := range results {
		if f := results[i].finish; f != nil {
			results[i].finish = nil
			wg.Go(func() { f(ctx, &results[i]) })
		}
	}
	wg.Wait()
}

// leaderStopLimit is how long the leading machine's stop of a held name
// may take: the graceful timeout (its spec's, which that loop uses, or
// the command's when longer), then, escalated, the kill timeout, or, on a
// leased store, a TTL, the owner's revoked lease standing that long
// whatever the kill timeout; and leaderSlack for that loop to see the hold.
func leaderStopLimit(o StopOptions, d *spec.Daemon, ttl time.Duration) time.Duration {
	graceful, kill := o.Graceful, o.Kill
	if d != nil {
		graceful, kill = max(graceful, d.Config.GracefulTimeout), max(kill, d.Config.KillTimeout)
	}
	return graceful + max(kill, ttl) + leaderSlack
}

// awaitLeaderStop waits, after a stop here held name on every machine,
// for the machine that leads it (leader) to stop its owner: until the
// record shows none running, within leaderStopLimit. It sends nothing
// itself: the owner is the leader's to stop (fenced by its election), and
// the hold stays whatever the answer.
func (r *Reconciler) awaitLeaderStop(ctx context.Context, name, leader string, d *spec.Daemon, o StopOptions) (ok bool, msg string) {
	limit := leaderStopLimit(o, d, r.store.LeaseTTL())
	_, cls, ok := r.awaitRecord(ctx, name, limit, ownDesired, func(_ ownership.Observation, cls ownership.Classification) bool {
		return cls.Class == ownership.ClassStopped || cls.Class == ownership.ClassAbsent
	})
	if ok {
		return true, fmt.Sprintf("held stopped on every machine; machine %s, which leads %s, stopped it", leader, name)
	}
	return false, fmt.Sprintf("held stopped on every machine, but machine %s, which leads %s, has not stopped it within %v (%s); see reconciler status there", leader, name, limit, cls.Message)
}

// awaitLeaderStart waits, after a start here let go of name's hold on
// every machine while another machine leads it, for that machine's loop
// to start d's owner: until the record shows it healthy, within d's
// readyTimeout and leaderSlack. It starts nothing itself: only the leader
// spawns.
func (r *Reconciler) awaitLeaderStart(ctx context.Context, name string, d *spec.Daemon) (ok bool, msg string) {
	limit := d.Config.ReadyTimeout + leaderSlack
	want := func(ownership.Record) ownership.Desired { return desiredOf(d) }
	obs, cls, ok := r.awaitRecord(ctx, name, limit, want, func(obs ownership.Observation, cls ownership.Classification) bool {
		return cls.Health == ownership.HealthHealthy && obs.Record.State != nil
	})
	if ok {
		st := obs.Record.State
		return true, fmt.Sprintf("no longer held on any machine; machine %s started %s daemon (pid %d)", st.Machine, name, st.PID)
	}
	return false, fmt.Sprintf("no longer held on any machine, but the machine that leads %s has not started it healthy within %v (%s %s); see reconciler status there", name, limit, cls.Reason, cls.Message)
}

// awaitRecord looks at name's record every 200 ms, classified against
// what want says of it, until done holds (ok) or limit passes; it returns
// the last look either way, for the message.
func (r *Reconciler) awaitRecord(ctx context.Context, name string, limit time.Duration, want func(ownership.Record) ownership.Desired,
	done func(ownership.Observation, ownership.Classification) bool) (ownership.Observation, ownership.Classification, bool) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		obs := r.store.Observe(name)
		cls := obs.Classify(want(obs.Record))
		if done(obs, cls) {
			return obs, cls, true
		}
		select {
		case <-ctx.Done():
			return obs, cls, false
		case <-tick.C:
		}
	}
}
