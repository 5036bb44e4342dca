package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Stop runs the fenced stop sequence on the owner decided on: control
// request -> SIGTERM -> wait graceful -> SIGKILL -> wait kill -> proven dead ->
// clear the request. It returns nil only once the owner is proven dead (or
// proven never to have been this name's daemon). want is the desired object
// (nil for a name no source declares). Without escalate, it stops after
// SIGTERM with ownership.ErrDidNotExit. Its errors say what was sent and what was
// refused, never more.
func (s *Store) Stop(ctx context.Context, name string, want *ownership.Desired, decided ownership.State, how ownership.StopOptions) (err error) {
	paths := s.paths(name)
	action, graceful, kill, escalate := how.Action, how.Graceful, how.Kill, how.Escalate
	// Every check a signal needs, the process's command line included,
	// before anything is written or sent.
	proc, err := OpenOwner(paths, want, decided, s.probe)
	switch {
	case errors.Is(err, platform.ErrProcessGone):
		// Exited, its PID reused, or proved never this name's daemon: the
		// record's owner is gone, and that process is none of ours.
		var gone *OwnerGoneError
		if errors.As(err, &gone) && gone.NotDaemon {
			s.log.Info("not stopping: the record names a process that is not this daemon", "pid", decided.PID, "why", err.Error())
		}
		return nil
	case err != nil:
		return fmt.Errorf("not stopping owner %s (pid %d); %w: %w", decided.OwnerID, decided.PID, ownership.ErrNothingSent, err)
	}
	defer proc.Close()
	if err := how.BeforeSending(); err != nil {
		return fmt.Errorf("not stopping owner %s (pid %d); %w: %w", decided.OwnerID, decided.PID, ownership.ErrNothingSent, err)
	}

	req := ownership.NewControlRequest(action, decided, s.Now())
	if err := WriteControl(paths, req); err != nil {
		return fmt.Errorf("writing control request; %w: %w", ownership.ErrNothingSent, err)
	}
	var done ladder
	// A request does not outlive the stop that wrote it (as in the
	// reference): a stop that gave up must not leave the owner to find,
	// minutes later, a request its operator saw fail. The exception is a
	// stop that could send no signal at all: then the request is the only
	// word the owner has, and it stays (the error says so). Cleared by
	// request id only, so a later stop's request is left alone.
	defer func() {
		if err != nil && !done.sentAny() {
			err = fmt.Errorf("%w; the control request stays for the owner to find", err)
			return
		}
		var changed *ownership.ControlChangedError
		if cerr := ClearControl(paths, req.RequestID); cerr != nil && !errors.Is(cerr, fs.ErrNotExist) && !errors.As(cerr, &changed) {
			s.log.Error(cerr, "clearing control request", "requestId", req.RequestID)
		}
	}()
	s.log.Info("stopping owner", "ownerId", decided.OwnerID, "pid", decided.PID, "action", action)
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, graceful}, {syscall.SIGKILL, kill}} {
		err := SignalOwner(paths, want, decided, step.sig, s.probe)
		if err != nil && !errors.Is(err, platform.ErrProcessGone) {
			// The record changed (a release writes stoppedAt) or cannot be
			// proven: no signal, but the process may still be on its way out.
			s.log.Info("not signalling", "pid", decided.PID, "signal", step.sig.String(), "why", err.Error())
		}
		done.add(step.sig, step.wait, err)
		how.Report(ownership.StopStep{Signal: unix.SignalName(step.sig), Sent: err == nil, Wait: step.wait})
		if waitExit(ctx, proc, step.wait) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !escalate {
			return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrDidNotExit, decided.PID, &done)
		}
	}
	return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrNotProvenDead, decided.PID, &done)
}

// ladder is what a stop did, step by step, for its message: a signal that
// was refused is never reported as sent.
type ladder struct {
	steps []string
	sent  bool // some signal was delivered
}

func (l *ladder) sentAny() bool { return l.sent }

func (l *ladder) add(sig syscall.Signal, waited time.Duration, err error) {
	name := unix.SignalName(sig)
	switch {
	case err == nil:
		l.sent = true
		l.steps = append(l.steps, fmt.Sprintf("%s (waited %v)", name, waited))
	case errors.Is(err, platform.ErrProcessGone):
		l.steps = append(l.steps, fmt.Sprintf("%s not sent: the owner had exited (waited %v)", name, waited))
	default:
		l.steps = append(l.steps, fmt.Sprintf("%s not sent: %v (waited %v)", name, err, waited))
	}
}

func (l *ladder) String() string { return strings.Join(l.steps, "; ") }

// waitExit waits on the process reference itself (a pidfd), not on the record.
func waitExit(ctx context.Context, proc *platform.Process, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return proc.Wait(wctx) == nil
}
