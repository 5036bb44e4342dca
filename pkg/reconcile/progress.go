package reconcile

import (
	"context"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
)

// Wait names what a reconciler is waiting for, for a person watching a
// command that waits (--once, stop, restart, start).
type Wait string

const (
	// WaitNone: the name's wait is over.
	WaitNone Wait = ""
	// WaitReady: a new owner (PID) to become healthy within readyTimeout.
	WaitReady Wait = "Ready"
	// WaitExitAfterSIGTERM and WaitExitAfterSIGKILL: an owner being
	// stopped to exit, after the control request and the signal.
	WaitExitAfterSIGTERM Wait = "ExitAfterSIGTERM"
	WaitExitAfterSIGKILL Wait = "ExitAfterSIGKILL"
	// WaitExitRequested: an owner asked to go by its control request and
	// not signalled: it released its record already, on its way out, or
	// it could not be proved for a signal.
	WaitExitRequested Wait = "ExitRequested"
	// WaitLastOwnerExit: the owner last proved for a name, whose record is
	// gone or released, to exit before a successor may start.
	WaitLastOwnerExit Wait = "LastOwnerExit"
	// WaitPassLock: another reconciler's pass to end (PID its holder,
	// Detail its command line, both as far as they are known).
	WaitPassLock Wait = "PassLock"
	// WaitLoop: the running loop to do what a command asked of it over
	// the local API (Detail: the command).
	WaitLoop Wait = "Loop"
)

// Progress is one change in a wait: what the reconciler waits for, on
// which process, until when, and what the record says meanwhile.
type Progress struct {
	Name string // the daemon's name; empty for the pass lock
	Wait Wait
	PID  int // the process waited on; 0 when unknown
	// Deadline is when the wait gives up; zero when it does not.
	Deadline time.Time
	// Detail is what the record says meanwhile: the daemon's
	// transportError while it connects. Untrusted text, one line.
	Detail string
}

// ProgressFunc receives each change in a wait. It is called from the
// goroutine that waits (several at once in a pass) and must not block.
type ProgressFunc func(Progress)

func (r *Reconciler) progress(p Progress) {
	if r.opts.Progress != nil {
		p.Detail = ownership.OneLine(p.Detail)
		r.opts.Progress(p)
	}
}

// stopProgress turns a stop's steps into Progress for name's owner pid.
func (r *Reconciler) stopProgress(name string, pid int) func(ownership.StopStep) {
	if r.opts.Progress == nil {
		return nil
	}
	return func(s ownership.StopStep) {
		w := WaitExitAfterSIGTERM
		switch {
		case !s.Sent:
			w = WaitExitRequested
		case s.Signal == "SIGKILL":
			w = WaitExitAfterSIGKILL
		}
		r.progress(Progress{Name: name, Wait: w, PID: pid, Deadline: time.Now().Add(s.Wait)})
	}
}

// stopWith runs the store's stop of name's owner s, reporting its steps
// and the end of its wait; a how.Progress the caller set hears them too.
func (r *Reconciler) stopWith(ctx context.Context, name string, want *ownership.Desired, s ownership.State, how ownership.StopOptions) error {
	if report, also := r.stopProgress(name, s.PID), how.Progress; report != nil && also != nil {
		how.Progress = func(st ownership.StopStep) { report(st); also(st) }
	} else if report != nil {
		how.Progress = report
	}
	defer r.progress(Progress{Name: name})
	return r.store.Stop(ctx, name, want, s, how)
}
