package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/ladder"
	"gjc.dev/reconciler/pkg/platform"
)

// Stop runs the fenced stop sequence on the owner decided on: every check,
// the control request, then the ladder (internal/ladder: SIGTERM -> wait
// graceful -> SIGKILL -> wait kill -> proven dead -> clear the request).
// It returns nil only once the owner is proven dead (or proven never to
// have been this name's daemon). want is the desired object (nil for a
// name no source declares). Without escalate, it stops after SIGTERM with
// ownership.ErrDidNotExit. Its errors say what was sent and what was
// refused, never more.
func (s *Store) Stop(ctx context.Context, name string, want *ownership.Desired, decided ownership.State, how ownership.StopOptions) error {
	paths := s.paths(name)
	action := how.Action
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
	s.log.Info("stopping owner", "ownerId", decided.OwnerID, "pid", decided.PID, "action", action)
	return ladder.Climb(ctx, ladder.Stop{
		PID: decided.PID, How: how,
		Send: func(sig syscall.Signal) error {
			err := SignalOwner(paths, want, decided, sig, s.probe)
			if err != nil && !errors.Is(err, platform.ErrProcessGone) {
				// The record changed (a release writes stoppedAt) or cannot
				// be proven: no signal, but the process may still be on its
				// way out.
				s.log.Info("not signalling", "pid", decided.PID, "signal", unix.SignalName(sig), "why", err.Error())
			}
			return err
		},
		Exited: func(ctx context.Context, d time.Duration) bool { return waitExit(ctx, proc, d) },
		Clear: func() {
			var changed *ownership.ControlChangedError
			if cerr := ClearControl(paths, req.RequestID); cerr != nil && !errors.Is(cerr, fs.ErrNotExist) && !errors.As(cerr, &changed) {
				s.log.Error(cerr, "clearing control request", "requestId", req.RequestID)
			}
		},
	})
}

// waitExit waits on the process reference itself (a pidfd), not on the record.
func waitExit(ctx context.Context, proc *platform.Process, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return proc.Wait(wctx) == nil
}
