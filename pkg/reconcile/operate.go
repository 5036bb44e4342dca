package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// OperateResult is what `stop` and `restart` report; -o json prints it.
type OperateResult struct {
	Name     string        `json:"name"`
	Action   string        `json:"action"`
	OK       bool          `json:"ok"`
	Message  string        `json:"message"`
	Before   *DaemonStatus `json:"before"`
	After    *DaemonStatus `json:"after"`
	Warnings []string      `json:"warnings"`
	// finish, when set, is the rest of the command: a wait for the
	// machine that leads the name to act, run by AwaitLeaders once the
	// caller let go of the pass lock and the name.
	finish func(ctx context.Context, out *OperateResult)
}

// StopOptions bound a stop; Force allows SIGKILL after the graceful timeout.
type StopOptions struct {
	Force    bool
	Graceful time.Duration
	Kill     time.Duration
}

// Stop stops one daemon now, as the reference's operate() does: a fenced
// SIGTERM with a control request, SIGKILL only when forced. d is the name's
// desired object, nil when no source declares it. The caller holds the pass
// lock, and calls AwaitLeaders once it let go of it.
//
// The name is held stopped (Holds: on every machine of a fleet) before anything is sent, so that
// no loop starts it again the moment it exits, and only then: a stop that
// is refused (an owner that cannot be proved, another machine's to stop)
// holds nothing. A hold that cannot be written stops nothing.
func (r *Reconciler) Stop(ctx context.Context, name string, d *spec.Daemon, res *spec.Result, o StopOptions) OperateResult {
	r.seedTracked()
	out := r.operation(name, "stop", d, res)
	// created: this stop wrote the hold, where none was just before, and
	// its write changed it. Only such a hold is lifted when the stop is
	// refused after writing it: one set before, by the operator or (in a
	// fleet, on another machine) by another stop meanwhile, is theirs; one
	// set by another stop after this write is theirs too, and Unhold
	// leaves it (a stop writes the hold even when it finds it held).
	held, created := false, false
	hold := func() error {
		if held {
			return nil
		}
		prior, err := r.holds.Hold(name)
		if err != nil {
			return err
		}
		changed, err := r.setHold(name, &Hold{Force: o.Force})
		if err != nil {
			return err
		}
		held, created = true, prior == nil && changed
		return nil
	}
	l := r.lookFor(commandStop, name, d, res, o.Force)
	p := decide(l)
	switch p.step {
	case stepDecline:
		out.Message = p.message
	case stepHold:
		if err := hold(); err != nil {
			out.Message = fmt.Sprintf("%s not stopped: %v", name, err)
			return out
		}
		out.OK, out.Message = p.converged, p.message
	case stepHoldLeader:
		if err := hold(); err != nil {
			out.Message = fmt.Sprintf("%s not stopped: %v", name, err)
			return out
		}
		leader := l.cmd.leader
		out.Message = p.message
		out.finish = func(ctx context.Context, out *OperateResult) {
			out.OK, out.Message = r.awaitLeaderStop(ctx, name, leader, d, o)
			after := r.view(name, d, res)
			out.After = &after
		}
	case stepHoldStop:
		rec := l.rec
		how := ownership.StopOptions{Action: "stop", Graceful: o.Graceful, Kill: o.Kill, Escalate: p.escalate, Sending: hold}
		err := r.stopOwner(ctx, name, wantOf(d), *rec.State, how, "reconciler stop")
		if err == nil {
			// Proved gone before anything was sent: held all the same.
			err = hold()
		}
		switch {
		case err == nil:
			out.OK, out.Message = true, fmt.Sprintf("stopped %s daemon (pid %d)", name, rec.State.PID)
		case errors.Is(err, ownership.ErrDidNotExit):
			r.state(name).termTimedOut = rec.State.OwnerID
			out.Message = fmt.Sprintf("%s daemon (pid %d) did not exit within %v; rerun with --force to end it: it is left running, held stopped (%s), and no loop sends it SIGKILL", name, rec.State.PID, o.Graceful, ReasonStopTimedOut)
		default:
			out.Message = fmt.Sprintf("%s daemon: %v", name, err)
			if held && created && errors.Is(err, ownership.ErrNothingSent) {
				// Refused after the hold was written (the control request
				// could not be written, another machine took the name
				// meanwhile): a refused stop holds nothing.
				switch lifted, uerr := r.unhold(name); {
				case uerr != nil:
					out.Message += fmt.Sprintf("; the hold it wrote could not be lifted: %v", uerr)
				case lifted:
					held = false
				default:
					out.Message += "; the hold it wrote is kept: another stop held the name since"
				}
			}
		}
	}
	if held {
		out.Warnings = append(out.Warnings, fmt.Sprintf("held stopped until reconciler start %s", name))
	}
	after := r.view(name, d, res)
	out.After = &after
	r.saveAfter(res, after)
	return out
}

// saveAfter puts what an operator's command left into status.json: acting
// alone, no loop comes by to write it, and status would show the name as
// it was before the command until a pass ran.
func (r *Reconciler) saveAfter(res *spec.Result, s DaemonStatus) {
	if err := r.saveStatus(res, s); err != nil {
		r.log.Error(err, "writing status.json")
	}
}

// Restart is stop-and-replace now: the loop's fenced sequence (SIGKILL after
// the graceful timeout), then a spawn and a bounded wait for healthy.
func (r *Reconciler) Restart(ctx context.Context, name string, d *spec.Daemon, res *spec.Result) OperateResult {
	out := r.operation(name, "restart", d, res)
	l := r.lookFor(commandRestart, name, d, res, false)
	switch p := decide(l); p.step {
	case stepDecline:
		out.Message = p.message
		return out
	case stepRestartStop:
		how := ownership.StopOptions{Action: "reload", Graceful: d.Config.GracefulTimeout, Kill: d.Config.KillTimeout, Escalate: p.escalate}
		if err := r.stopOwner(ctx, name, wantOf(d), *l.rec.State, how, "reconciler restart"); err != nil {
			out.Message = fmt.Sprintf("%s daemon: %v; not starting a second one", name, err)
			return out
		}
	}
	o := r.Reconcile(ctx, name, d, res)
	// The loop may not run: the next reconciler learns of the new owner
	// (and the one it holds) from status.json.
	r.saveAfter(res, o.Status)
	out.After = &o.Status
	out.OK = o.Status.Converged
	out.Message = fmt.Sprintf("%s: %s", o.Status.Reason, o.Status.Message)
	if out.OK {
		out.Message = fmt.Sprintf("restarted %s daemon (pid %d)", name, o.Status.PID)
	}
	return out
}

func (r *Reconciler) operation(name, action string, d *spec.Daemon, res *spec.Result) OperateResult {
	// A restart spawns: its daemon must not inherit the spec's secrets.
	r.setDesired(res)
	before := r.view(name, d, res)
	return OperateResult{Name: name, Action: action, Before: &before, Warnings: []string{}}
}

func (r *Reconciler) view(name string, d *spec.Daemon, res *spec.Result) DaemonStatus {
	var s DaemonStatus
	timedOut := ""
	r.mu.Lock()
	saved := r.names[name]
	if saved != nil {
		s, timedOut = saved.status, saved.termTimedOut
		// A copy: live sets conditions in place, and the name's worker
		// and the loop's status.json read them meanwhile.
		s.Conditions = slices.Clone(s.Conditions)
	}
	r.mu.Unlock()
	hold, err := r.holds.Hold(name)
	return live(s, name, d, r.store, hold, err, timedOut)
}

// lookFor is the look an operator's command c on name is judged on: the
// record classified against the spec's object d (nil: none declares it,
// and the record is judged against its own daemon, so a proved owner can
// still be stopped); for a stop, the owner tracked for the name and, when
// nothing here can be signalled, who leads it; for a restart, the holds.
func (r *Reconciler) lookFor(c command, name string, d *spec.Daemon, res *spec.Result, force bool) look {
	obs := r.store.Observe(name)
	l := look{name: name, rec: obs.Record, cmd: commandLook{command: c, specErrors: len(res.Errors)}}
	desired := ownDesired(l.rec)
	if d != nil {
		desired = desiredOf(d)
		l.declared, l.cmd.specStopped = true, d.Config.State == spec.StateStopped
	}
	l.cls = obs.Classify(desired)
	switch c {
	case commandStop:
		l.want = stoppingOf(false, &Hold{Force: force}) // the hold this stop writes
		if h := r.trackedAlive(name); h != nil {
			l.tracked = trackedLook{owner: h, alive: true}
		}
		e := electionOf(r.store, name)
		if !l.cls.Signalable {
			l.cmd.ledElsewhere = ledElsewhere(e)
		}
		l.cmd.leader, l.cmd.sharedHolds = leaderElsewhere(e), r.holds.Shared()
	case commandRestart:
		l.hold, l.holdsErr = r.holds.Hold(name)
	}
	return l
}

func wantOf(d *spec.Daemon) *ownership.Desired {
	if d == nil {
		return nil
	}
	w := desiredOf(d)
	return &w
}

// Start lets go of the operator's hold on name (reconciler stop) and
// reconciles it at once, as a pass would: started if the spec says Running.
// The caller holds the pass lock, and calls AwaitLeaders once it let go of
// it.
func (r *Reconciler) Start(ctx context.Context, name string, d *spec.Daemon, res *spec.Result) OperateResult {
	r.seedTracked()
	out := r.operation(name, "start", d, res)
	changed, err := r.setHold(name, nil)
	if err != nil {
		out.Message = fmt.Sprintf("%s not started: %v", name, err)
		return out
	}
	if d == nil {
		// A hold outlives the name's object; letting go of it is all a
		// start can do then (start --all does it for every held name).
		out.Message = notInSpec(name, "start", len(res.Errors))
		if changed {
			out.OK, out.Message = true, fmt.Sprintf("no longer held; %s is not in the spec, so nothing is started", name)
		}
		after := r.view(name, d, res)
		out.After = &after
		r.saveAfter(res, after)
		return out
	}
	if !changed {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s was not held", name))
	}
	o := r.Reconcile(ctx, name, d, res)
	out.After = &o.Status
	r.saveAfter(res, o.Status)
	switch {
	case d.Config.State == spec.StateStopped:
		out.OK, out.Message = true, fmt.Sprintf("no longer held; the spec says %s is Stopped", name)
	case o.Status.Converged:
		out.OK, out.Message = true, fmt.Sprintf("started %s daemon (pid %d)", name, o.Status.PID)
	case o.Status.Reason == ownership.ReasonLedElsewhere && r.holds.Shared():
		// The hold was the fleet's: the machine that leads the name
		// starts it, having seen the hold go.
		out.Message = fmt.Sprintf("no longer held on any machine; the machine that leads %s starts it", name)
		out.finish = func(ctx context.Context, out *OperateResult) {
			out.OK, out.Message = r.awaitLeaderStart(ctx, name, d)
			after := r.view(name, d, res)
			out.After = &after
		}
	default:
		out.Message = fmt.Sprintf("%s: %s %s: %s", name, o.Status.Phase, o.Status.Reason, o.Status.Message)
	}
	return out
}
