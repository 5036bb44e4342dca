package fakestore

import (
	"fmt"
	"syscall"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/internal/ladder"
	"gjc.dev/reconciler/pkg/platform"
)

// Process is a fake process. An owner behaves as a daemon does: on a stop
// request addressed to it, or SIGTERM, it releases and exits (unless
// stubborn); SIGKILL ends it. It notes everything it receives.
type Process struct {
	w           *World
	pid         int
	incarnation string
	// claim is who its command line says it is; nil for a process that
	// is no daemon.
	claim    *ownership.DaemonClaim
	stubborn bool
	holds    string // the name it holds, as a kernel-held name lock: "" for none

	received []syscall.Signal
	requests []Request
	exited   bool
	done     chan struct{} // closed on exit
}

// OwnerOptions say who a started owner is and how it behaves.
type OwnerOptions struct {
	// OwnerID is the owner id it runs as; the world makes a unique one
	// when it is empty.
	OwnerID string
	// Stubborn: it ignores stop requests and SIGTERM; only SIGKILL ends it.
	Stubborn bool
}

// StartOwner starts an owner of name that takes ownership at want, as a
// daemon's Acquire does, and publishes a healthy heartbeat. It refuses, as
// Acquire would, while a live process holds the name.
func (w *World) StartOwner(name string, want ownership.Desired, o OwnerOptions) (*Process, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.holderOf(name); h != nil {
		return nil, fmt.Errorf("acquire %s: %w", name, &ownership.HeldError{PID: h.pid, Source: ownership.NameLockFile})
	}
	if o.OwnerID == "" {
		w.lastOwner++
		o.OwnerID = fmt.Sprintf("fakestore-owner-%d", w.lastOwner)
	}
	p := w.spawn(&ownership.DaemonClaim{AgentDir: AgentDir, Name: name, OwnerID: o.OwnerID})
	p.stubborn, p.holds = o.Stubborn, name
	now := w.now.UnixMilli()
	sl := w.slot(name)
	sl.record = &ownership.State{
		Version: ownership.RecordVersion, Kind: want.Kind, PID: p.pid, OwnerID: o.OwnerID, Identity: want.Identity,
		Incarnation: p.incarnation, StartedAt: now, HeartbeatAt: now, TransportHealthy: true,
		Generation: want.Generation.Opt(), BootID: w.boot.ID,
	}
	sl.malformed, sl.prepared = false, true
	w.changed(name)
	return p, nil
}

// StartProcess starts a process that owns nothing and is no daemon.
func (w *World) StartProcess() *Process {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.spawn(nil)
}

func (w *World) spawn(claim *ownership.DaemonClaim) *Process {
	w.lastPID++
	w.lastInc += 17
	p := &Process{w: w, pid: w.lastPID, incarnation: fmt.Sprintf("linux:%d", w.lastInc), claim: claim, done: make(chan struct{})}
	w.procs[p.pid] = p
	return p
}

func (p *Process) PID() int            { return p.pid }
func (p *Process) Incarnation() string { return p.incarnation }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

func (p *Process) Exited() bool {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return p.exited
}

// Received returns the signals delivered to it, in order.
func (p *Process) Received() []syscall.Signal {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return append([]syscall.Signal(nil), p.received...)
}

// Requests returns the control requests addressed to it that it read.
func (p *Process) Requests() []Request {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Release has the owner release, as on its way out, and go on running.
func (p *Process) Release() {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.release()
}

// Kill ends the process at once, without a release: the world's own doing
// (an operator's kill -9, a lost machine), which no fault stops.
func (p *Process) Kill() {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	p.exit()
}

// release writes stoppedAt into the record, only while it is still this
// owner's, and lets go of the name either way (as Owner.Release does).
func (p *Process) release() {
	if p.holds == "" {
		return
	}
	if sl := p.w.names[p.holds]; sl != nil && sl.record != nil && p.owns(*sl.record) && sl.record.StoppedAt == nil {
		t := p.w.now.UnixMilli()
		sl.record.StoppedAt, sl.record.TransportHealthy = &t, false
		p.w.changed(p.holds)
	}
	p.holds = ""
}

func (p *Process) owns(s ownership.State) bool {
	me := p.self()
	return p.claim != nil && s.OwnerID == me.OwnerID && s.PID == me.PID && s.Incarnation == me.Incarnation
}

// self is who p is, as a record of it would say.
func (p *Process) self() ownership.State {
	s := ownership.State{PID: p.pid, Incarnation: p.incarnation}
	if p.claim != nil {
		s.OwnerID = p.claim.OwnerID
	}
	return s
}

func (p *Process) exit() {
	if p.exited {
		return
	}
	p.exited, p.holds = true, ""
	close(p.done)
}

// deliver sends sig to p, failing as the world's faults say. The caller
// holds the world's lock.
func (p *Process) deliver(sig syscall.Signal) error {
	if err := p.w.faults.signalErr; err != nil {
		return fmt.Errorf("signal %s to pid %d: %w", ladder.Name(sig), p.pid, err)
	}
	if p.exited {
		return fmt.Errorf("signal %s to pid %d: %w", ladder.Name(sig), p.pid, platform.ErrProcessGone)
	}
	p.received = append(p.received, sig)
	switch {
	case p.w.faults.undying[p.pid]:
		// In uninterruptible sleep: nothing it receives takes effect.
	case sig == syscall.SIGKILL:
		p.exit()
	case sig == syscall.SIGTERM && !p.stubborn:
		p.release()
		p.exit()
	}
	return nil
}

// controlled is p reading name's control request, as a daemon does on its
// heartbeat: one addressed to it is obeyed unless it is stubborn. The
// caller holds the world's lock.
func (p *Process) controlled(name string, req Request) {
	if p.exited || p.claim == nil || p.claim.Name != name || !req.addressedTo(p.self()) {
		return
	}
	p.requests = append(p.requests, req)
	if !p.stubborn && !p.w.faults.undying[p.pid] {
		p.release()
		p.exit()
	}
}
