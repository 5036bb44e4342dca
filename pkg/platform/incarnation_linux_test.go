package platform_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/platform"
)

// A command name may hold spaces and parentheses; the fields after it must
// still be counted right. The helper runs under a file named "a) b (c", which
// becomes its comm.
func TestIncarnationOfAwkwardlyNamedProcess(t *testing.T) {
	const name = "a) b (c"
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(testBinary(t), link); err != nil {
		t.Fatal(err)
	}
	h := startHelper(t, link, "block")
	pid := h.Cmd.Process.Pid
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(string(comm), "\n"); got != name {
		t.Fatalf("comm = %q, want %q", got, name)
	}
	got, err := platform.Incarnation(pid)
	if err != nil {
		t.Fatal(err)
	}
	// The plain reading, knowing the name: field 22 is the 20th after it.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := strings.CutPrefix(string(stat), fmt.Sprintf("%d (%s) ", pid, name))
	if !ok {
		t.Fatalf("stat %q does not start with the pid and name", stat)
	}
	want := "linux:" + strings.Fields(rest)[19]
	if got != want {
		t.Fatalf("Incarnation = %s, want %s (stat %q)", got, want, stat)
	}
	if !incarnation.Valid(got) {
		t.Fatalf("Incarnation %q is not valid", got)
	}
}

func TestIncarnationDistinguishesProcesses(t *testing.T) {
	self, err := platform.Incarnation(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	again, err := platform.Incarnation(os.Getpid())
	if err != nil || again != self {
		t.Fatalf("Incarnation(self) changed: %s then %s, %v", self, again, err)
	}
	h := startHelper(t, "", "block")
	child, err := platform.Incarnation(h.Cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// Start ticks are 10 ms apart at best; a child started after us can
	// share our tick, so compare as numbers.
	a, _ := strconv.ParseUint(strings.TrimPrefix(self, "linux:"), 10, 64)
	b, _ := strconv.ParseUint(strings.TrimPrefix(child, "linux:"), 10, 64)
	if b < a {
		t.Fatalf("child incarnation %s is before ours %s", child, self)
	}
}
