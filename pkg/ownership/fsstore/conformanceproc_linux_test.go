package fsstore_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/internal/helperproc"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// ioTimeout bounds every exchange with a helper, so a stuck one fails the
// case instead of hanging it.
const ioTimeout = helperproc.Timeout

// proc is a running helper (conformancehelper_linux_test.go) with
// line-oriented pipes, reaped in the background so that its exit can be
// waited for with a deadline.
type proc struct {
	cmd         *exec.Cmd
	in, out     *os.File
	r           *bufio.Reader
	done        chan struct{} // closed once reaped
	incarnation string
}

// startProc starts the test binary as helper mode with args, and returns it
// once it said "ready". It is killed and reaped when the case ends.
func startProc(t *testing.T, mode string, env []string, args ...string) *proc {
	t.Helper()
	cmd := helperproc.Self(t, helperEnv, mode, args...)
	cmd.Env = append(cmd.Env, env...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the %s helper: %v", mode, err)
	}
	inR.Close()
	outW.Close()
	p := &proc{cmd: cmd, in: inW, out: outR, r: bufio.NewReader(outR), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	if line, err := p.recv(); err != nil || line != "ready" {
		t.Fatalf("the %s helper (pid %d) did not start: %q %v", mode, p.PID(), line, err)
	}
	if p.incarnation, err = platform.Incarnation(p.PID()); err != nil {
		t.Fatalf("incarnation of helper %d: %v", p.PID(), err)
	}
	return p
}

// kill ends the helper and waits until it is reaped; calling it again is
// harmless.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(ioTimeout):
	}
	p.in.Close()
	p.out.Close()
}

func (p *proc) PID() int            { return p.cmd.Process.Pid }
func (p *proc) Incarnation() string { return p.incarnation }

func (p *proc) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ask sends one command line and returns the answer line.
func (p *proc) ask(line string) (string, error) {
	_ = p.in.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		return "", err
	}
	return p.recv()
}

func (p *proc) recv() (string, error) {
	_ = p.out.SetReadDeadline(time.Now().Add(ioTimeout))
	line, err := p.r.ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

// AssertUntouched asks the helper what it received. One that received
// SIGKILL, or SIGTERM as a well-behaved owner, has exited and cannot answer.
func (p *proc) AssertUntouched(t *testing.T) {
	t.Helper()
	got, err := p.ask("report")
	if err != nil {
		// A closed pipe is an exit under way: wait for the reaper to say.
		select {
		case <-p.done:
			t.Fatalf("pid %d has exited: it was stopped or killed (%v)", p.PID(), err)
		case <-time.After(ioTimeout):
			t.Fatalf("pid %d did not answer: %v", p.PID(), err)
		}
	}
	if got != "none" {
		t.Fatalf("pid %d received %s", p.PID(), got)
	}
}

// owner is a live owner helper.
type owner struct {
	*proc
	record ownership.State
}

func (o *owner) Record() ownership.State { return o.record }

func (o *owner) Release(t *testing.T) {
	t.Helper()
	if got, err := o.ask("release"); err != nil || got != "released" {
		t.Fatalf("owner %d: release: %q %v", o.PID(), got, err)
	}
}

func (o *owner) Crash(t *testing.T) {
	t.Helper()
	_ = o.cmd.Process.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := o.Wait(ctx); err != nil {
		t.Fatalf("owner %d did not die of SIGKILL: %v", o.PID(), err)
	}
}

// bystander is a live helper that is no daemon.
type bystander struct{ *proc }

// StaleIncarnation is a valid Linux incarnation (a start time in clock
// ticks since boot) that no process started this late has.
func (b bystander) StaleIncarnation() string { return "linux:1" }
