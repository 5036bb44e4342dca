package platform_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"gjc.dev/reconciler/internal/helperproc"
	"gjc.dev/reconciler/pkg/platform"
	"golang.org/x/sys/unix"
)

// The test binary doubles as the helper processes the tests need: re-executed
// with helperEnv set, TestMain runs the named helper instead of the tests.
const (
	helperEnv    = "PLATFORM_TEST_HELPER"
	helperPIDEnv = "PLATFORM_TEST_PID"
	helperIDEnv  = "PLATFORM_TEST_ID"
)

// ioTimeout bounds every wait on a helper, so a stuck helper fails the test
// instead of hanging it.
const ioTimeout = helperproc.Timeout

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

func runHelper(mode string) int {
	switch mode {
	case "block":
		// Live until the test closes our stdin (or dies): no orphans.
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "alive":
		pid, err := strconv.Atoi(os.Getenv(helperPIDEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		alive, err := platform.Alive(pid)
		fmt.Printf("alive=%t err=%v kill=%v\n", alive, err, unix.Kill(pid, 0))
		return 0
	case "namelock":
		// Takes the name lock named on stdin and holds it until stdin closes.
		in := bufio.NewScanner(os.Stdin)
		if !in.Scan() {
			return 2
		}
		l, err := platform.TakeNameLock(in.Text())
		if err != nil {
			fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
			return 1
		}
		defer l.Release()
		fmt.Println("held")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "creator":
		// One CreateExclusive per path read from stdin, one answer line
		// per path: long-lived, so a race round costs no process spawn.
		id := os.Getenv(helperIDEnv)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			_, err := platform.CreateExclusive(in.Text(), []byte(id))
			switch {
			case err == nil:
				fmt.Println("win")
			case errors.Is(err, platform.ErrExist):
				fmt.Println("exist")
			default:
				fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
			}
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// helper is a running helper process.
type helper = helperproc.Proc

type helperOpt func(*exec.Cmd)

func withEnv(kv ...string) helperOpt {
	return func(c *exec.Cmd) { c.Env = append(c.Env, kv...) }
}

// startHelper starts the test binary (or exe, if not empty) in mode. It is
// stopped, by closing its stdin, when the test ends.
func startHelper(t testing.TB, exe, mode string, opts ...helperOpt) *helper {
	t.Helper()
	cmd := helperproc.Self(t, helperEnv, mode)
	if exe != "" {
		cmd.Path, cmd.Args[0] = exe, exe
	}
	for _, o := range opts {
		o(cmd)
	}
	return helperproc.Start(t, cmd)
}

func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// spawner is a long-lived sh whose background jobs are processes that are
// not our children: what the reconciler sees of a daemon it did not start.
type spawner struct{ sh *helper }

func newSpawner(t testing.TB) *spawner {
	t.Helper()
	return &spawner{sh: helperproc.Start(t, exec.Command("/bin/sh", "-s"))}
}

// spawn starts a grandchild `sleep` and returns its PID.
func (s *spawner) spawn(t testing.TB) int {
	t.Helper()
	s.sh.Send(t, "sleep 120 </dev/null >/dev/null 2>&1 & echo $!")
	pid, err := strconv.Atoi(s.sh.Recv(t))
	if err != nil {
		t.Fatalf("spawner: %v", err)
	}
	return pid
}

// reap has sh collect the exited grandchild, so no zombie keeps its PID.
func (s *spawner) reap(t testing.TB, pid int) {
	t.Helper()
	s.sh.Send(t, "wait "+strconv.Itoa(pid)+" 2>/dev/null")
}

func openPID(t testing.TB, pid int) *platform.Process {
	t.Helper()
	inc, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatalf("Incarnation(%d): %v", pid, err)
	}
	p, err := platform.OpenProcess(pid, inc)
	if err != nil {
		t.Fatalf("OpenProcess(%d, %s): %v", pid, inc, err)
	}
	return p
}
