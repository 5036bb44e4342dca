package reconcile

import (
	"context"
	"errors"
	"fmt"
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
}

// StopOptions bound a stop; Force allows SIGKILL after the graceful timeout.
type StopOptions struct {
	Force    bool
	Graceful time.Duration
	Kill     time.Duration
}

// Stop stops one daemon now, as the reference's operate() does: a fenced
// SIGTERM with a control request, SIGKILL only when forced. d is the name's
// desired object, nil when no source declares it. The caller holds the lock.
//
// The name is held stopped (holds.json) before anything is sent, so that
// no loop starts it again the moment it exits, and only then: a stop that
// is refused (an owner that cannot be proved, another machine's to stop)
// holds nothing. A hold that cannot be written stops nothing.
func (r *Reconciler) Stop(ctx context.Context, name string, d *spec.Daemon, res *spec.Result, o StopOptions) OperateResult {
	r.seedTracked()
	out := r.operation(name, "stop", d, res)
	held, heldBefore := false, r.hasHold(name)
	hold := func() error {
		if held {
			return nil
		}
		if _, err := r.setHold(name, &Hold{Force: o.Force}); err != nil {
			return err
		}
		held = true
		return nil
	}
	rec, cls, refusal := r.operable(name, "stop", d)
	led := ""
	if refusal == "" && !cls.Signalable {
		led = ledElsewhere(electionOf(r.store, name))
	}
	switch {
	case refusal != "":
		out.Message = refusal
	case led != "":
		// Nothing runs here, but the machine that leads it may start it
		// any moment: a hold here would only keep it down once that
		// machine is gone, which is not what was asked.
		out.Message = fmt.Sprintf("%s not stopped: %s; run the stop there (nothing was sent, nothing is held)", name, led)
	case !cls.Signalable:
		if err := hold(); err != nil {
			out.Message = fmt.Sprintf("%s not stopped: %v", name, err)
			return out
		}
		if h := r.trackedAlive(name); h != nil && (rec.State == nil || rec.State.OwnerID != h.OwnerID) {
			// Alive without its record: nothing to fence a signal against.
			out.Message = fmt.Sprintf("%s: %s daemon (pid %d) still runs though its record is gone; it exits at its next heartbeat, or end it yourself", ReasonOwnerWithoutRecord, name, h.PID)
			break
		}
		out.OK, out.Message = true, fmt.Sprintf("no running %s daemon", name)
	default:
		how := ownership.StopOptions{Action: "stop", Graceful: o.Graceful, Kill: o.Kill, Escalate: o.Force, Sending: hold}
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
			if held && !heldBefore && errors.Is(err, ownership.ErrNothingSent) {
				// Refused after the hold was written (the control request
				// could not be written, another machine took the name
				// meanwhile): a refused stop holds nothing.
				if _, uerr := r.setHold(name, nil); uerr != nil {
					out.Message += fmt.Sprintf("; the hold it wrote could not be lifted: %v", uerr)
				} else {
					held = false
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
	if d == nil {
		out.Message = notInSpec(name, "restart", res)
		return out
	}
	if d.Config.State == spec.StateStopped {
		out.Message = fmt.Sprintf("the spec says %s is Stopped; set state: Running to start it", name)
		return out
	}
	switch holds, err := readHolds(r.opts.AgentDir); {
	case err != nil:
		out.Message = fmt.Sprintf("%s not restarted: %v", name, err)
		return out
	case holds[name] != (Hold{}):
		out.Message = fmt.Sprintf("%s is held stopped by reconciler stop; run reconciler start %s", name, name)
		return out
	}
	rec, cls, refusal := r.operable(name, "restart", d)
	if refusal != "" {
		out.Message = refusal
		return out
	}
	if cls.Signalable {
		how := ownership.StopOptions{Action: "reload", Graceful: d.Config.GracefulTimeout, Kill: d.Config.KillTimeout, Escalate: true}
		if err := r.stopOwner(ctx, name, wantOf(d), *rec.State, how, "reconciler restart"); err != nil {
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
	r.mu.Lock()
	saved := r.names[name]
	r.mu.Unlock()
	var s DaemonStatus
	timedOut := ""
	if saved != nil {
		s, timedOut = saved.status, saved.termTimedOut
	}
	holds, _ := readHolds(r.opts.AgentDir) // unreadable: see holdLook
	return live(s, name, d, r.store, holdOf(holds, name), timedOut)
}

// operable classifies a name's owner for an operator's command, with the
// reference's refusals: a newer owner, or one that cannot be proven.
func (r *Reconciler) operable(name, action string, d *spec.Daemon) (ownership.Record, ownership.Classification, string) {
	obs := r.store.Observe(name)
	rec := obs.Record
	desired := ownership.Desired{Kind: kindOf(rec), Identity: identityOf(rec), Generation: generationOf(rec)}
	if d != nil {
		desired = desiredOf(d)
	}
	cls := obs.Classify(desired)
	switch {
	case cls.Class == ownership.ClassNewer:
		return rec, cls, fmt.Sprintf("%s daemon is newer than this controller; upgrade this controller before %s", name, action)
	case cls.Class == ownership.ClassMalformed, cls.Class == ownership.ClassForeign, cls.AmbiguouslyLive:
		return rec, cls, fmt.Sprintf("%s daemon ownership changed; refusing to signal (%s)", name, cls.Message)
	}
	return rec, cls, ""
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
// The caller holds the lock.
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
		out.Message = notInSpec(name, "start", res)
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
	default:
		out.Message = fmt.Sprintf("%s: %s %s: %s", name, o.Status.Phase, o.Status.Reason, o.Status.Message)
	}
	return out
}

// notInSpec says that name has no object to act as; with the spec invalid
// as read here (a shell without its fromEnv tokens, say), that may be why.
func notInSpec(name, verb string, res *spec.Result) string {
	msg := fmt.Sprintf("%s is not in the spec; nothing to %s it as", name, verb)
	if !res.Valid() {
		msg += fmt.Sprintf(" (the spec is invalid as read here: %d error(s); run reconciler validate)", len(res.Errors))
	}
	return msg
}

// ledElsewhere says why a stop here cannot stand for the name's owner
// ("" when it can): another machine leads its election, or who leads it
// cannot be read. A store without elections (one machine) has e nil.
func ledElsewhere(e *Election) string {
	switch {
	case e == nil || (e.Error == "" && (e.Leader == "" || e.Leader == e.Self)):
		return ""
	case e.Error != "":
		return "which machine leads it cannot be read: " + e.Error
	default:
		return fmt.Sprintf("machine %s leads it", e.Leader)
	}
}
