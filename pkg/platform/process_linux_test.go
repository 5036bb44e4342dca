package platform_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
	"golang.org/x/sys/unix"
)

func TestOpenProcessRefusesReusedPID(t *testing.T) {
	h := startHelper(t, "", "block")
	pid := h.Cmd.Process.Pid
	real, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	// A record from the PID's previous holder: same PID, older start.
	_, err = platform.OpenProcess(pid, "linux:1")
	var mismatch *platform.IncarnationMismatchError
	if !errors.As(err, &mismatch) || !errors.Is(err, platform.ErrIncarnationMismatch) {
		t.Fatalf("OpenProcess with a stale incarnation: got %v, want an IncarnationMismatchError", err)
	}
	if mismatch.PID != pid || mismatch.Want != "linux:1" || mismatch.Got != real {
		t.Errorf("mismatch = %+v, want PID %d Want linux:1 Got %s", *mismatch, pid, real)
	}
	if !strings.Contains(err.Error(), "linux:1") || !strings.Contains(err.Error(), real) {
		t.Errorf("message %q does not say both incarnations", err)
	}
}

func TestOpenProcessRejectsBadArguments(t *testing.T) {
	self, err := platform.Incarnation(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pid  int
		inc  string
		want error
	}{
		{0, self, platform.ErrInvalidPID},
		{-1, self, platform.ErrInvalidPID},
		{1 << 30, self, platform.ErrInvalidPID},
		{os.Getpid(), "unavailable", platform.ErrInvalidIncarnation},
		{os.Getpid(), "", platform.ErrInvalidIncarnation},
		{os.Getpid(), "linux:0" + strings.TrimPrefix(self, "linux:"), platform.ErrInvalidIncarnation},
	} {
		p, err := platform.OpenProcess(tc.pid, tc.inc)
		if !errors.Is(err, tc.want) {
			t.Errorf("OpenProcess(%d, %q) = %v, %v; want %v", tc.pid, tc.inc, p, err, tc.want)
		}
	}
}

func TestOpenProcessGone(t *testing.T) {
	h := startHelper(t, "", "block")
	pid := h.Cmd.Process.Pid
	inc, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	h.In.Close()
	if err := h.Cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := platform.OpenProcess(pid, inc); !errors.Is(err, platform.ErrProcessGone) {
		t.Fatalf("OpenProcess of a reaped process: %v, want ErrProcessGone", err)
	}
}

// A process we spawned but have not reaped yet is a zombie: dead to Alive
// and to Signal, although kill(pid, 0) still succeeds.
func TestZombieIsDead(t *testing.T) {
	h := startHelper(t, "", "block")
	pid := h.Cmd.Process.Pid
	p := openPID(t, pid)
	defer p.Close()
	if alive, err := platform.Alive(pid); err != nil || !alive {
		t.Fatalf("Alive(running child) = %v, %v", alive, err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, p)
	if state := procState(t, pid); state != "Z" {
		t.Fatalf("state of killed, unreaped child = %q, want Z", state)
	}
	if err := unix.Kill(pid, 0); err != nil {
		t.Fatalf("kill(zombie, 0) = %v; the test needs it to succeed", err)
	}
	if alive, err := platform.Alive(pid); err != nil || alive {
		t.Errorf("Alive(zombie) = %v, %v; want false", alive, err)
	}
	if exited, err := p.Exited(); err != nil || !exited {
		t.Errorf("Exited(zombie) = %v, %v; want true", exited, err)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, platform.ErrProcessGone) {
		t.Errorf("Signal(zombie) = %v, want ErrProcessGone", err)
	}
	_ = h.Cmd.Wait()
	// Reaped: pidfd_send_signal itself now says ESRCH.
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, platform.ErrProcessGone) {
		t.Errorf("Signal(reaped) = %v, want ErrProcessGone", err)
	}
	if alive, err := platform.Alive(pid); err != nil || alive {
		t.Errorf("Alive(reaped) = %v, %v; want false", alive, err)
	}
}

func TestSignalAfterExitIsProcessGone(t *testing.T) {
	s := newSpawner(t)
	p := s.openSpawned(t)
	if err := p.Signal(0); err != nil {
		t.Fatalf("Signal(0) to a live process: %v", err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, p)
	s.reap(t, p.PID())
	err := p.Signal(syscall.SIGTERM)
	if !errors.Is(err, platform.ErrProcessGone) {
		t.Fatalf("Signal after exit = %v, want ErrProcessGone", err)
	}
	if !strings.Contains(err.Error(), "SIGTERM") {
		t.Errorf("message %q does not name the signal", err)
	}
}

// The reconciler watches daemons it did not start (a previous reconciler
// did): Wait must see a non-child's exit, at once.
func TestWaitNonChild(t *testing.T) {
	s := newSpawner(t)
	p := s.openSpawned(t)
	if _, err := unix.Wait4(p.PID(), nil, unix.WNOHANG, nil); err != unix.ECHILD {
		t.Fatalf("wait4 on the grandchild = %v; the test needs a non-child", err)
	}
	done := make(chan error, 1)
	var exitedAt time.Time
	go func() {
		err := p.Wait(context.Background())
		exitedAt = time.Now()
		done <- err
	}()
	if exited, err := p.Exited(); err != nil || exited {
		t.Fatalf("Exited before the kill = %v, %v", exited, err)
	}
	killedAt := time.Now()
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait = %v", err)
		}
	case <-time.After(ioTimeout):
		t.Fatal("Wait did not return after SIGKILL")
	}
	latency := exitedAt.Sub(killedAt)
	t.Logf("SIGKILL to Wait returning: %v", latency)
	if latency > time.Second {
		t.Errorf("Wait returned %v after SIGKILL; want milliseconds", latency)
	}
	s.reap(t, p.PID())
}

func TestWaitHonoursContext(t *testing.T) {
	s := newSpawner(t)
	p := s.openSpawned(t)
	base := runtime.NumGoroutine()
	for range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		err := p.Wait(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait with an expiring ctx = %v, want DeadlineExceeded", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a cancelled ctx = %v, want Canceled", err)
	}
	// Nothing may stay behind: the wake-up functions end with the waits.
	deadline := time.Now().Add(ioTimeout)
	for runtime.NumGoroutine() > base+1 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after cancelled waits", base, runtime.NumGoroutine())
		}
		runtime.Gosched()
	}
	if exited, err := p.Exited(); err != nil || exited {
		t.Fatalf("process state after cancelled waits: %v, %v", exited, err)
	}
}

func TestWaitAfterExitWinsOverDoneContext(t *testing.T) {
	s := newSpawner(t)
	p := s.openSpawned(t)
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait on an exited process with a done ctx = %v, want nil", err)
	}
	s.reap(t, p.PID())
}

func TestWaitConcurrentAndClose(t *testing.T) {
	s := newSpawner(t)
	p := s.openSpawned(t)
	const waiters = 8
	errs := make(chan error, waiters)
	for range waiters {
		go func() { errs <- p.Wait(context.Background()) }()
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("concurrent Wait = %v", err)
			}
		case <-time.After(ioTimeout):
			t.Fatal("a concurrent Wait did not return")
		}
	}
	s.reap(t, p.PID())

	// Close wakes a Wait in progress.
	q := s.openSpawned(t)
	var wg sync.WaitGroup
	wg.Add(1)
	var werr error
	go func() {
		defer wg.Done()
		werr = q.Wait(context.Background())
	}()
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if !errors.Is(werr, os.ErrClosed) {
		t.Errorf("Wait interrupted by Close = %v, want os.ErrClosed", werr)
	}
	if err := q.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v, want os.ErrClosed", err)
	}
	if err := q.Signal(syscall.SIGKILL); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Signal after Close = %v, want os.ErrClosed", err)
	}
	// Close releases the reference, not the process: it is still there.
	r := openPID(t, q.PID())
	defer r.Close()
	if exited, err := r.Exited(); err != nil || exited {
		t.Fatalf("process after Close of a reference: exited=%v, %v", exited, err)
	}
	if err := r.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExit(t, r)
	s.reap(t, r.PID())
}

func waitExit(t testing.TB, p *platform.Process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func procState(t testing.TB, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

// openSpawned spawns a grandchild and opens it; it is killed at test end.
func (s *spawner) openSpawned(t testing.TB) *platform.Process {
	t.Helper()
	pid := s.spawn(t)
	p := openPID(t, pid)
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		_ = p.Close()
	})
	return p
}
