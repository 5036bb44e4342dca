package systemtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/localapi"
	"gjc.dev/reconciler/pkg/reconcile"
)

// Agent dir B's api.sock leads to A's loop: a symlink there (refused by the
// command, naming the path), then a hard link (a socket, not a link:
// refused by A's loop, which serves A and is asked for B). Neither stop nor
// send acts: A's d1 keeps running, unheld, and A's outbox gets nothing;
// nor does either act alone on B.
func TestCommandsRefuseAnotherAgentDirsLoop(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "d1", provider: "slack", generation: 1})
	e.startLoop()
	e.waitStatus("d1 running", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	before := e.state("d1")

	b := t.TempDir()
	if err := os.MkdirAll(filepath.Join(b, "sdk", "reconciler"), 0o700); err != nil {
		t.Fatal(err)
	}
	realA, _ := filepath.EvalSymlinks(e.agentDir)
	realB, _ := filepath.EvalSymlinks(b)
	sockA, sockB := localapi.SocketPath(e.agentDir), localapi.SocketPath(b)
	for _, c := range []struct {
		name string
		link func(oldname, newname string) error
		says string
	}{
		{"a symlink at api.sock", os.Symlink, "refused the socket " + sockB + ": it is a symlink"},
		{"a hard link at api.sock", os.Link, "this loop serves the agent dir " + realA + ", and the request is for the agent dir " + realB},
	} {
		_ = os.Remove(sockB)
		if err := c.link(sockA, sockB); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"stop", "d1"},
			{"send", "d1", "--session", "s:1", "--id", "01J0000000000000000000LINK", "for B"},
		} {
			r := runBinary(t, nil, append(args, "--agent-dir", b)...)
			if r.code != 1 || !strings.Contains(r.stderr, c.says) || strings.Contains(r.stderr, "acting directly") {
				t.Errorf("%s: %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.name, args[0], r.code, r.stdout, r.stderr, c.says)
			}
		}
	}

	st := e.state("d1")
	if st.OwnerID != before.OwnerID || st.StoppedAt != nil || !canaryAlivePID(t, st.PID) {
		t.Errorf("A's d1 was stopped by commands for B: %+v", st)
	}
	if files := e.outboxOf("d1"); len(files) != 0 {
		t.Errorf("A's outbox got %v from a send for B", files)
	}
	if _, err := os.Lstat(filepath.Join(b, "sdk", "bus")); err == nil {
		t.Error("a command acted alone on B")
	}
	// A's own commands are answered as ever.
	if r := runBinary(t, nil, "status", "d1", "--agent-dir", e.agentDir); r.code != 0 {
		t.Errorf("status of A: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
