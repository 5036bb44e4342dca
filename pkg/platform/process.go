package platform

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/incarnation"
)

// Process is a stable reference to one process, proved by its incarnation
// when opened. On Linux it holds a pidfd, which keeps naming that process
// after it exits, so Signal and Wait can never reach a process that reused
// its PID. On macOS the incarnation is re-read before every signal instead.
//
// A Process is safe for concurrent use. Close releases it and wakes every
// Wait in progress.
type Process struct {
	pid         int
	incarnation string
	sys         processSys

	closed      atomic.Bool
	closing     context.Context // done once Close is called
	markClosing context.CancelFunc
}

// OpenProcess returns a reference to the process pid whose incarnation is
// inc. It fails with an error matching ErrIncarnationMismatch (a
// *IncarnationMismatchError saying what was found) if pid now names another
// process, ErrProcessGone if no process has pid or it has exited,
// ErrInvalidPID or ErrInvalidIncarnation for arguments that prove nothing.
func OpenProcess(pid int, inc string) (*Process, error) {
	if err := checkPID(pid); err != nil {
		return nil, fmt.Errorf("open process: %w", err)
	}
	if !incarnation.Valid(inc) {
		return nil, fmt.Errorf("open process %d: %w: %q", pid, ErrInvalidIncarnation, inc)
	}
	sys, err := openProcessSys(pid, inc)
	if err != nil {
		return nil, fmt.Errorf("open process %d: %w", pid, err)
	}
	closing, markClosing := context.WithCancel(context.Background())
	return &Process{
		pid:         pid,
		incarnation: inc,
		sys:         sys,
		closing:     closing,
		markClosing: markClosing,
	}, nil
}

// PID returns the process ID the reference was opened with.
func (p *Process) PID() int { return p.pid }

// Incarnation returns the incarnation the reference was proved against.
func (p *Process) Incarnation() string { return p.incarnation }

// Signal sends sig to the process itself (never to its group). Once the
// process has exited, zombie included, it fails with ErrProcessGone and
// sends nothing. Signal 0 only checks that the process is there.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.closed.Load() {
		return fmt.Errorf("signal pid %d: %w", p.pid, os.ErrClosed)
	}
	if err := p.signal(sig); err != nil {
		return fmt.Errorf("signal %s to pid %d: %w", signalName(sig), p.pid, err)
	}
	return nil
}

// Wait blocks until the process exits (becomes a zombie or is gone), which
// works whether or not it is our child, and returns nil then. It returns
// ctx's error if ctx is done first, and an error matching os.ErrClosed if
// the Process is closed meanwhile. An exit that has already happened wins
// over a ctx that is already done. Any number of Waits may run at once.
func (p *Process) Wait(ctx context.Context) error {
	if p.closed.Load() {
		return fmt.Errorf("wait for pid %d: %w", p.pid, os.ErrClosed)
	}
	if err := p.wait(ctx); err != nil {
		return fmt.Errorf("wait for pid %d: %w", p.pid, err)
	}
	return nil
}

// Exited reports, without blocking, whether the process has exited.
func (p *Process) Exited() (bool, error) {
	if p.closed.Load() {
		return false, fmt.Errorf("pid %d: %w", p.pid, os.ErrClosed)
	}
	exited, err := p.exited()
	if err != nil {
		return false, fmt.Errorf("pid %d: %w", p.pid, err)
	}
	return exited, nil
}

// Close releases the reference and wakes any Wait in progress. Closing
// twice is an error matching os.ErrClosed.
func (p *Process) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return fmt.Errorf("close pid %d: %w", p.pid, os.ErrClosed)
	}
	p.markClosing()
	if err := p.sys.close(); err != nil {
		return fmt.Errorf("close pid %d: %w", p.pid, err)
	}
	return nil
}

// onInterrupt arranges for wake to run once ctx is done or p is closed; the
// returned stop cancels that. Nothing runs, and no goroutine exists, until
// one of the two happens.
func (p *Process) onInterrupt(ctx context.Context, wake func()) (stop func()) {
	stopCtx := context.AfterFunc(ctx, wake)
	stopClosing := context.AfterFunc(p.closing, wake)
	return func() {
		stopCtx()
		stopClosing()
	}
}

// interrupted says why a wait woken by onInterrupt must stop, or nil.
func (p *Process) interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.closing.Err() != nil {
		return os.ErrClosed
	}
	return nil
}

// proveIncarnation checks that pid names the process with incarnation want.
func proveIncarnation(pid int, want string) error {
	got, err := Incarnation(pid)
	if err != nil {
		return err
	}
	if got != want {
		return &IncarnationMismatchError{PID: pid, Want: want, Got: got}
	}
	return nil
}

func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}
