// Package helperproc runs the test binary again as a helper process that a
// test talks to in lines on its stdin and stdout: the processes the
// platform's and the stores' tests prove, signal and lock against. For
// tests only.
package helperproc

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Timeout bounds every read and write on a helper, so a stuck helper fails
// the test instead of hanging it.
const Timeout = 20 * time.Second

// Proc is a running helper with line-oriented pipes.
type Proc struct {
	Cmd     *exec.Cmd
	In, Out *os.File
	r       *bufio.Reader
}

// Self is a command running the test binary again with args and env=mode
// set, for its TestMain to play that helper instead of running the tests.
func Self(t testing.TB, env, mode string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	// Under -race a process sleeps a second at exit by default: not ours.
	cmd.Env = append(os.Environ(), env+"="+mode, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return cmd
}

// Start starts cmd with pipes for its stdin and stdout; it is stopped
// (Stop) when the test ends.
func Start(t testing.TB, cmd *exec.Cmd) *Proc {
	t.Helper()
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
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	inR.Close()
	outW.Close()
	p := &Proc{Cmd: cmd, In: inW, Out: outR, r: bufio.NewReader(outR)}
	t.Cleanup(p.Stop)
	return p
}

// Stop ends the helper, by closing its stdin and killing it, and reaps
// it; it may be called more than once.
func (p *Proc) Stop() {
	p.In.Close()
	_ = p.Cmd.Process.Kill()
	_ = p.Cmd.Wait()
	p.Out.Close()
}

// PID is the helper's process id.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Send writes line to the helper's stdin.
func (p *Proc) Send(t testing.TB, line string) {
	t.Helper()
	_ = p.In.SetWriteDeadline(time.Now().Add(Timeout))
	if _, err := io.WriteString(p.In, line+"\n"); err != nil {
		t.Fatalf("helper %d: write: %v", p.PID(), err)
	}
}

// Recv reads the helper's next line from its stdout.
func (p *Proc) Recv(t testing.TB) string {
	t.Helper()
	_ = p.Out.SetReadDeadline(time.Now().Add(Timeout))
	line, err := p.r.ReadString('\n')
	if err != nil {
		t.Fatalf("helper %d: read: %v", p.PID(), err)
	}
	return strings.TrimSuffix(line, "\n")
}
