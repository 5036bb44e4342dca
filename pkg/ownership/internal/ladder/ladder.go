// Package ladder is the signalling half of a stop, shared by every store
// that signals a process: SIGTERM and a wait, then SIGKILL and a wait when
// escalation is allowed. The store checks everything first and writes the
// control request; the ladder climbs, says what it did, and decides
// whether that request outlives the stop.
package ladder

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

// Stop is one climb against the owner decided on.
type Stop struct {
	PID int // the owner's, for messages
	How ownership.StopOptions
	// Send checks again that the process is the owner decided on, and
	// only then sends sig. An error means nothing was sent; one that
	// matches platform.ErrProcessGone, that the owner had exited.
	Send func(sig syscall.Signal) error
	// Exited waits up to d, on the process itself (never its record),
	// and reports whether it exited.
	Exited func(ctx context.Context, d time.Duration) bool
	// Clear removes the control request this stop wrote.
	Clear func()
}

// Climb runs the ladder: nil once the owner exited; ErrDidNotExit when
// it outlived SIGTERM and SIGKILL is not allowed; ErrNotProvenDead when
// it outlived SIGKILL too; ctx's error when ctx ended first. Its message
// lists every step, and a signal that was refused is never reported sent.
//
// A request does not outlive the stop that wrote it (as in the reference):
// a stop that gave up must not leave the owner to find, minutes later, a
// request its operator saw fail. The exception is a stop that failed
// without sending any signal: then the request is the only word the owner
// has, and it stays (the error says so).
func Climb(ctx context.Context, s Stop) (err error) {
	var done steps
	defer func() {
		if err != nil && !done.sent {
			err = fmt.Errorf("%w; the control request stays for the owner to find", err)
			return
		}
		s.Clear()
	}()
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGTERM, s.How.Graceful}, {syscall.SIGKILL, s.How.Kill}} {
		serr := s.Send(step.sig)
		done.add(step.sig, step.wait, serr)
		s.How.Report(ownership.StopStep{Signal: Name(step.sig), Sent: serr == nil, Wait: step.wait})
		if s.Exited(ctx, step.wait) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !s.How.Escalate {
			return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrDidNotExit, s.PID, &done)
		}
	}
	return fmt.Errorf("%w: pid %d still alive after %s", ownership.ErrNotProvenDead, s.PID, &done)
}

// steps is what a climb did, step by step, for its message.
type steps struct {
	lines []string
	sent  bool // some signal was delivered
}

func (l *steps) add(sig syscall.Signal, waited time.Duration, err error) {
	n := Name(sig)
	switch {
	case err == nil:
		l.sent = true
		l.lines = append(l.lines, fmt.Sprintf("%s (waited %v)", n, waited))
	case errors.Is(err, platform.ErrProcessGone):
		l.lines = append(l.lines, fmt.Sprintf("%s not sent: the owner had exited (waited %v)", n, waited))
	default:
		l.lines = append(l.lines, fmt.Sprintf("%s not sent: %v (waited %v)", n, err, waited))
	}
}

func (l *steps) String() string { return strings.Join(l.lines, "; ") }

// Name names the ladder's signals as kill(1) does.
func Name(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return fmt.Sprintf("signal %d", int(sig))
}
