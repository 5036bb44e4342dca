package fakestore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Stop runs fsstore's ladder on the owner decided on: every check first,
// then the control request, then SIGTERM and a wait, SIGKILL and a wait
// when escalation is allowed, each signal after checking again. It returns
// nil only once that owner's process exited, or it was proved gone before
// anything was sent. The waits are real time, on the process itself.
func (s *Store) Stop(ctx context.Context, name string, want *ownership.Desired, decided ownership.State, how ownership.StopOptions) (err error) {
	w := s.w
	w.mu.Lock()
	proc, err := w.openOwner(name, want, decided)
	w.mu.Unlock()
	switch {
	case errors.Is(err, platform.ErrProcessGone):
		return nil
	case err != nil:
		return fmt.Errorf("not stopping owner %s (pid %d); %w: %w", decided.OwnerID, decided.PID, ownership.ErrNothingSent, err)
	}
	if err := how.BeforeSending(); err != nil {
		return fmt.Errorf("not stopping owner %s (pid %d); %w: %w", decided.OwnerID, decided.PID, ownership.ErrNothingSent, err)
	}

	req := w.writeControl(name, how.Action, decided)
	var done ladder
	// As fsstore: the request does not outlive the stop that wrote it,
	// unless no signal could be sent at all.
	defer func() {
		if err != nil && !done.sent {
			err = fmt.Errorf("%w; the control request stays for the owner to find", err)
			return
		}
		w.clearControl(name, req.ID)
	}()
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, how.Graceful}, {syscall.SIGKILL, how.Kill}} {
		w.runBeforeSignal(name, step.sig)
		serr := w.signalOwner(name, want, decided, step.sig)
		done.add(step.sig, step.wait, serr)
		how.Report(ownership.StopStep{Signal: signalName(step.sig), Sent: serr == nil, Wait: step.wait})
		if waitExit(ctx, proc, step.wait) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !how.Escalate {
			return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrDidNotExit, decided.PID, &done)
		}
	}
	return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrNotProvenDead, decided.PID, &done)
}

// signalOwner checks again, as ownership.SignalOwner does, and only then
// sends sig.
func (w *World) signalOwner(name string, want *ownership.Desired, decided ownership.State, sig syscall.Signal) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, err := w.openOwner(name, want, decided)
	if err != nil {
		return err
	}
	if err := p.deliver(sig); err != nil {
		if errors.Is(err, platform.ErrProcessGone) {
			return &goneError{pid: decided.PID, err: err}
		}
		return fmt.Errorf("signal owner %s: %w", decided.OwnerID, err)
	}
	return nil
}

// waitExit waits up to d for p itself to exit, not for its record.
func waitExit(ctx context.Context, p *Process, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	default:
	}
	select {
	case <-p.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// ladder is what a stop did, step by step, for its message: a refused
// signal is never reported as sent.
type ladder struct {
	steps []string
	sent  bool
}

func (l *ladder) add(sig syscall.Signal, waited time.Duration, err error) {
	n := signalName(sig)
	switch {
	case err == nil:
		l.sent = true
		l.steps = append(l.steps, fmt.Sprintf("%s (waited %v)", n, waited))
	case errors.Is(err, platform.ErrProcessGone):
		l.steps = append(l.steps, fmt.Sprintf("%s not sent: the owner had exited (waited %v)", n, waited))
	default:
		l.steps = append(l.steps, fmt.Sprintf("%s not sent: %v (waited %v)", n, err, waited))
	}
}

func (l *ladder) String() string { return strings.Join(l.steps, "; ") }
