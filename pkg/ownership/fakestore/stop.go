package fakestore

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/ladder"
	"gjc.dev/reconciler/pkg/platform"
)

// Stop runs the stores' ladder (internal/ladder) on the owner decided on:
// every check first, then the control request, then SIGTERM and a wait,
// SIGKILL and a wait when escalation is allowed, each signal after
// checking again. It returns nil only once that owner's process exited,
// or it was proved gone before anything was sent. The waits are real
// time, on the process itself.
func (s *Store) Stop(ctx context.Context, name string, want *ownership.Desired, decided ownership.State, how ownership.StopOptions) error {
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
	return ladder.Climb(ctx, ladder.Stop{
		PID: decided.PID, How: how,
		Send: func(sig syscall.Signal) error {
			w.runBeforeSignal(name, sig)
			return w.signalOwner(name, want, decided, sig)
		},
		Exited: func(ctx context.Context, d time.Duration) bool { return waitExit(ctx, proc, d) },
		Clear:  func() { w.clearControl(name, req.ID) },
	})
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
