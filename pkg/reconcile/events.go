package reconcile

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// EventRecorder keeps the history of what the reconciler saw and did, for
// `reconciler events` and `describe` (pkg/events keeps it on disk). It
// must not block: a name's worker calls it.
type EventRecorder interface {
	// Record notes one event of name ("" for the loop as a whole) of type
	// EventNormal or EventWarning, with a CamelCase reason.
	Record(name, eventType, reason, message string)
}

// Types of events.
const (
	EventNormal  = "Normal"
	EventWarning = "Warning"
)

// Reasons of the events that are not a phase's (those carry the status's).
const (
	EventSpawned    = "Spawned"
	EventStopping   = "Stopping"
	EventStopped    = "Stopped"
	EventKilled     = "Killed" // a stop escalated to SIGKILL
	EventExited     = "Exited"
	EventSpecError  = "SpecError"
	EventSpecValid  = "SpecValid"
	eventNoReason   = "PhaseChanged"
	maxEventSpecErr = 20 // spec errors recorded per change; the rest are counted
)

// event records through Options.Events, if any.
func (r *Reconciler) event(name, eventType, reason, message string) {
	if r.opts.Events != nil {
		r.opts.Events.Record(name, eventType, reason, message)
	}
}

// phaseEvent records a change of phase or reason: a Warning when it is
// trouble (a refusal, a crash loop, anything Degraded).
func (r *Reconciler) phaseEvent(prev, cur DaemonStatus, degraded bool) {
	t := EventNormal
	if degraded || cur.Phase == PhaseRefused || cur.Phase == PhaseCrashLoopBackOff {
		t = EventWarning
	}
	reason := cur.Reason
	if reason == "" {
		reason = eventNoReason
	}
	was := string(prev.Phase)
	if was == "" {
		was = "none"
	}
	msg := fmt.Sprintf("phase %s (was %s)", cur.Phase, was)
	if cur.Message != "" {
		msg += ": " + cur.Message
	}
	r.event(cur.Name, t, reason, msg)
}

// specEvents records a new spec result's errors, or that it is valid again.
func (r *Reconciler) specEvents(res *spec.Result, wasValid bool) {
	for i, e := range res.Errors {
		if i == maxEventSpecErr {
			r.event("", EventWarning, EventSpecError, fmt.Sprintf("and %d more; run reconciler validate", len(res.Errors)-i))
			break
		}
		r.event("", EventWarning, EventSpecError, e.String()+"; the last known good objects of this source are kept")
	}
	if res.Valid() && !wasValid {
		r.event("", EventNormal, EventSpecValid, fmt.Sprintf("the spec is valid again: %d daemons", len(res.Daemons)))
	}
}

// escalations is a stop's Progress that records an escalation to SIGKILL
// as an event: the daemon ignored SIGTERM for the whole graceful timeout.
func (r *Reconciler) escalations(name string, s ownership.State, graceful time.Duration) func(ownership.StopStep) {
	return func(st ownership.StopStep) {
		if st.Signal == "SIGKILL" && st.Sent {
			r.event(name, EventWarning, EventKilled, fmt.Sprintf("pid %d did not exit within %v of SIGTERM; sent SIGKILL", s.PID, graceful))
		}
	}
}

// Exit is how the last owner a reconciler saw running ended, as far as it
// knows: the code or signal only for a daemon it spawned and waited on;
// for another's (a previous reconciler's), what its record says.
type Exit struct {
	At      metav1.Time `json:"at"`
	PID     int         `json:"pid,omitempty"`
	OwnerID string      `json:"ownerId,omitempty"`
	// Code and Signal are set only when this reconciler waited on it.
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	// Released: it released its record on its way out (a clean stop).
	Released   bool                  `json:"released"`
	Terminated *ownership.Terminated `json:"terminated,omitempty"`
	Message    string                `json:"message"`
}

// describeExit says how owner ownerID ended: from its wait status when it
// was this process's child (c, nil otherwise), and from its record when
// the record is still its own. Pure: the caller gathered both.
func describeExit(ownerID string, pid int, rec ownership.Record, c *child, at time.Time) Exit {
	ex := Exit{At: metav1.NewTime(at), PID: pid, OwnerID: ownerID}
	var s *ownership.State
	if rec.State != nil && rec.State.OwnerID == ownerID {
		s = rec.State
		ex.PID = s.PID
	}
	who := "the daemon"
	if ex.PID != 0 {
		who = fmt.Sprintf("pid %d", ex.PID)
	}
	switch {
	case c != nil && c.exited():
		code := c.exit.Code
		if c.exit.Signal == "" {
			ex.Code = &code
		}
		ex.Signal = c.exit.Signal
		ex.Message = who + " " + c.exit.String()
	case c != nil:
		ex.Message = who + " exited; its wait status is not in yet"
	default:
		// Not ours to wait on: the kernel tells its parent only.
		ex.Message = who + " exited; how is not known (it is not this reconciler's child)"
	}
	switch {
	case s == nil:
		ex.Message += "; it left no record of its own"
	case s.Terminated != nil:
		ex.Released, ex.Terminated = s.StoppedAt != nil, s.Terminated
		ex.Message += fmt.Sprintf("; its record says %s: %s", s.Terminated.Reason, s.Terminated.Message)
	case s.StoppedAt != nil:
		ex.Released = true
		ex.Message += "; it released its record first"
	default:
		ex.Message += "; it did not release its record"
	}
	return ex
}

// exitType is the event type of an exit: a clean release is Normal.
func exitType(ex Exit) string {
	if ex.Released && ex.Terminated == nil && ex.Signal == "" && (ex.Code == nil || *ex.Code == daemonproto.ExitStopped) {
		return EventNormal
	}
	return EventWarning
}

// noteExit records that the owner the reconciler expected to run has
// exited: in the status (LastExit, kept across passes), the event history
// and the log. For its own child it waits, bounded, for the reaper: the
// process is gone, its wait status is a moment away.
func (a *attempt) noteExit(ownerID string, rec ownership.Record) Exit {
	var c *child
	if sc := a.st.child; sc != nil && sc.ownerID == ownerID {
		c = sc
		select {
		case <-c.done:
		case <-time.After(reapWait):
		case <-a.ctx.Done():
		}
	}
	pid := 0
	if c != nil {
		pid = c.pid
	} else if l := a.st.tracked; l != nil && l.state.OwnerID == ownerID {
		pid = l.state.PID
	}
	ex := describeExit(ownerID, pid, rec, c, a.r.now())
	a.status.LastExit = &ex
	a.r.event(a.name, exitType(ex), EventExited, ex.Message)
	a.r.log.Info("owner gone", "name", a.name, "ownerId", ownerID, "pid", ex.PID, "how", ex.Message)
	return ex
}

// reapWait bounds the wait for a dead child's reaper.
const reapWait = time.Second

// stopOwner runs the store's fenced stop on s with its events: what is
// stopped and why, an escalation to SIGKILL, and that it is gone. A stop
// that fails is the caller's to report (a refusal, an operator's error).
func (r *Reconciler) stopOwner(ctx context.Context, name string, want *ownership.Desired, s ownership.State, how ownership.StopOptions, why string) error {
	r.event(name, EventNormal, EventStopping, fmt.Sprintf("stopping pid %d (%s): control request %q, then SIGTERM", s.PID, why, how.Action))
	how.Progress = r.escalations(name, s, how.Graceful)
	err := r.stopWith(ctx, name, want, s, how)
	if err == nil {
		r.event(name, EventNormal, EventStopped, fmt.Sprintf("pid %d is gone", s.PID))
	}
	return err
}
