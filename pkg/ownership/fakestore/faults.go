package fakestore

import "syscall"

// faults are what the world is made to suffer; the zero value is none.
type faults struct {
	// hidden PIDs' liveness cannot be read (permission denied): they are
	// never proved alive or dead.
	hidden map[int]bool
	// signalErr is what every signal fails with (EPERM, say), delivering
	// nothing.
	signalErr error
	// undying processes take nothing they receive to heart (uninterruptible
	// sleep): SIGKILL included.
	undying map[int]bool
	// beforeSignal runs before each signal of a stop, after its checks.
	beforeSignal func(name string, sig syscall.Signal)
}

// HideLiveness makes pid's liveness unknown from now on: a look at it
// fails, as kill(2) or /proc do for a process one may not examine.
func (w *World) HideLiveness(pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.faults.hidden == nil {
		w.faults.hidden = map[int]bool{}
	}
	w.faults.hidden[pid] = true
}

// FailSignals makes every signal fail with err from now on, delivering
// nothing; nil heals.
func (w *World) FailSignals(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.faults.signalErr = err
}

// Undying makes pid a process that will not die of any signal, nor obey a
// stop request: a process stuck in the kernel. Only the world's Kill ends
// it.
func (w *World) Undying(pid int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.faults.undying == nil {
		w.faults.undying = map[int]bool{}
	}
	w.faults.undying[pid] = true
}

// BeforeSignal sets a hook that runs before each signal of a stop, once the
// stop has made its checks and written its request: what it changes (a
// record rewritten, an owner gone and a successor in, liveness lost) is
// what changed between the decision and the signal. It runs without the
// world's lock held, so it may arrange the world; nil removes it.
func (w *World) BeforeSignal(hook func(name string, sig syscall.Signal)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.faults.beforeSignal = hook
}

func (w *World) runBeforeSignal(name string, sig syscall.Signal) {
	w.mu.Lock()
	hook := w.faults.beforeSignal
	w.mu.Unlock()
	if hook != nil {
		hook(name, sig)
	}
}
