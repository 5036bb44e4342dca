package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"gjc.dev/reconciler/pkg/reconcile"
)

// waitLine says what p waits for, as of now: "waiting for discord (pid
// 123) to exit after SIGTERM (8s left)". Empty for the end of a wait.
func waitLine(p reconcile.Progress, now time.Time) string {
	who := p.Name
	if p.PID != 0 {
		who = fmt.Sprintf("%s (pid %d)", p.Name, p.PID)
	}
	var s string
	switch p.Wait {
	case reconcile.WaitNone:
		return ""
	case reconcile.WaitReady:
		s = fmt.Sprintf("waiting for %s to become healthy", who)
	case reconcile.WaitExitAfterSIGTERM:
		s = fmt.Sprintf("waiting for %s to exit after SIGTERM", who)
	case reconcile.WaitExitAfterSIGKILL:
		s = fmt.Sprintf("waiting for %s to exit after SIGKILL", who)
	case reconcile.WaitExitRequested:
		s = fmt.Sprintf("waiting for %s to exit as its control request asks", who)
	case reconcile.WaitLastOwnerExit:
		s = fmt.Sprintf("waiting for the last owner of %s to exit", who)
	case reconcile.WaitPassLock:
		s = "waiting for another reconciler's pass to end: the pass lock is held by " + lockHolder(p)
	case reconcile.WaitLoop:
		s = "waiting for the reconcile loop to " + p.Detail
	default:
		s = fmt.Sprintf("waiting for %s: %s", who, p.Wait)
	}
	if !p.Deadline.IsZero() {
		s += fmt.Sprintf(" (%s left)", left(p.Deadline, now))
	}
	if p.Detail != "" && p.Wait != reconcile.WaitPassLock && p.Wait != reconcile.WaitLoop {
		s += "; its transport: " + p.Detail
	}
	return s
}

// lockHolder names the pass lock's holder as far as it is known.
func lockHolder(p reconcile.Progress) string {
	switch {
	case p.PID == 0:
		return "a process the kernel does not name"
	case p.Detail == "":
		return fmt.Sprintf("pid %d", p.PID)
	}
	return fmt.Sprintf("pid %d (%s)", p.PID, p.Detail)
}

// left is the time to a deadline, in whole seconds, never negative.
func left(deadline, now time.Time) string {
	d := max(deadline.Sub(now), 0)
	return (d + time.Second - 1).Truncate(time.Second).String()
}

// waitChange is what makes a new line: another wait, another process,
// another word from the record. The time left is not: it only counts down.
func waitChange(prev *reconcile.Progress, next reconcile.Progress) bool {
	return prev == nil || prev.Wait != next.Wait || prev.PID != next.PID || prev.Detail != next.Detail
}

// spinnerLine is the terminal's last line while waits run: each one's
// name and time left, cut to the terminal's width (a line that wraps
// cannot be redrawn).
func spinnerLine(active []reconcile.Progress, frame int, now time.Time, width int) string {
	var parts []string
	for _, p := range active {
		what := p.Name
		if p.Wait == reconcile.WaitPassLock {
			what = "pass lock"
		}
		if !p.Deadline.IsZero() {
			what += " " + left(p.Deadline, now)
		}
		parts = append(parts, what)
	}
	frames := []rune(`|/-\`)
	s := string(frames[frame%len(frames)]) + " waiting: " + strings.Join(parts, ", ")
	if width > 1 && utf8.RuneCountInString(s) >= width {
		s = string([]rune(s)[:width-1])
	}
	return s
}

// waitReporter shows a command's waits on stderr, as they change: a line
// per change; on a terminal also a spinner line under them that counts
// the time left down, cleared once the waits are over. Off a terminal
// there is no spinner, only the lines.
type waitReporter struct {
	w     io.Writer
	tty   bool
	width int

	mu     sync.Mutex
	active map[string]reconcile.Progress // by name; "" is the pass lock
	drawn  bool                          // the spinner line is on screen
	frame  int
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

// newWaitReporter reports to w, with a spinner when w is a terminal.
func newWaitReporter(w io.Writer) *waitReporter {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return startWaitReporter(w, false, 0)
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		width = 80
	}
	return startWaitReporter(w, true, width)
}

func startWaitReporter(w io.Writer, tty bool, width int) *waitReporter {
	r := &waitReporter{w: w, tty: tty, width: width, active: map[string]reconcile.Progress{}, stop: make(chan struct{}), done: make(chan struct{})}
	if tty {
		go r.spin()
	} else {
		close(r.done)
	}
	return r
}

// Report is a reconcile.ProgressFunc.
func (r *waitReporter) Report(p reconcile.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	prev, ok := r.active[p.Name]
	if p.Wait == reconcile.WaitNone {
		delete(r.active, p.Name)
		r.redraw()
		return
	}
	r.active[p.Name] = p
	var was *reconcile.Progress
	if ok {
		was = &prev
	}
	if !waitChange(was, p) {
		return
	}
	r.clear()
	fmt.Fprintln(r.w, waitLine(p, time.Now()))
	r.redraw()
}

// Close ends the spinner and clears its line, before the command prints
// its result.
func (r *waitReporter) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.clear()
	r.mu.Unlock()
	if r.tty {
		close(r.stop)
	}
	<-r.done
}

func (r *waitReporter) spin() {
	defer close(r.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.frame++
			r.redraw()
			r.mu.Unlock()
		}
	}
}

// clear takes the spinner line off the screen; the caller holds mu.
func (r *waitReporter) clear() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.drawn = false
	}
}

// redraw puts the spinner line up again, if anything is waited for; the
// caller holds mu.
func (r *waitReporter) redraw() {
	if !r.tty || r.closed {
		return
	}
	r.clear()
	if len(r.active) == 0 {
		return
	}
	names := make([]string, 0, len(r.active))
	for n := range r.active {
		names = append(names, n)
	}
	slices.Sort(names)
	active := make([]reconcile.Progress, 0, len(names))
	for _, n := range names {
		active = append(active, r.active[n])
	}
	fmt.Fprint(r.w, spinnerLine(active, r.frame, time.Now(), r.width))
	r.drawn = true
}
