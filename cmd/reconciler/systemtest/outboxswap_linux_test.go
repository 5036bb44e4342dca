package systemtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A running daemon's outbox swapped for a link to a world-writable
// directory is refused at the relay's next look: the daemon says its
// relay is blocked (RelayBlocked, naming the link), and a message another
// uid dropped there is never posted, moved or failed. Put back, the
// outbox posts again.
func TestRunningDaemonNeverFollowsASwappedOutbox(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("dropping a file as another uid needs root")
	}
	e := newE2E(t)
	e.writeSpec(object{name: "discord", provider: "discord", generation: 1})
	e.startLoop()
	e.waitStatus("discord ready", func(s *reconcile.Status) bool { return countReady(s) == 1 })
	d, err := bus.Paths(e.agentDir, "discord")
	if err != nil {
		t.Fatal(err)
	}
	post := func(id, text string) {
		t.Helper()
		if _, err := bus.Write(d.Outbox, bus.Message{ID: id, Session: "s", Level: bus.LevelAction, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	post("m1", "before the swap")
	if _, err := frWait(e.f, "discord", e2eDeadline, func(v frView) bool { return v.holding("before the swap") == 1 }); err != nil {
		t.Fatalf("the first message was not posted: %v", err)
	}

	// In the system's temp dir, which every uid can reach.
	open, err := os.MkdirTemp("", "open-outbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(open) })
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(d.Outbox, d.Outbox+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(open, d.Outbox); err != nil {
		t.Fatal(err)
	}
	drop := exec.Command("/bin/sh", "-c", `cat > "$1"`, "sh", filepath.Join(open, "p1.json"))
	drop.Stdin = strings.NewReader(`{"id":"p1","session":"s","level":"action","text":"planted by another uid"}`)
	drop.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := drop.CombinedOutput(); err != nil {
		t.Fatalf("dropping a file as uid 65534: %v: %s", err, out)
	}
	// The relay looks again at its next resync (30 s) at the latest, and
	// the daemon reports at its next heartbeat.
	e.waitStatusWithin(45*time.Second, "the relay blocked on the link", func(s *reconcile.Status) bool {
		ds, ok := daemonStatus(s, "discord")
		return ok && ds.Relay != nil && ds.Relay.Blocked != nil && ds.Relay.Blocked.Reason == "RelayBlocked" &&
			strings.Contains(ds.Relay.Blocked.Message, "symbolic link")
	})
	if n := frSnapshot(e.f, "discord").holding("planted by another uid"); n != 0 {
		t.Fatalf("the file in the linked directory was posted %d times", n)
	}
	if _, err := os.Lstat(filepath.Join(open, "p1.json")); err != nil {
		t.Fatalf("the dropped file was touched: %v", err)
	}

	if err := os.Remove(d.Outbox); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(d.Outbox+".real", d.Outbox); err != nil {
		t.Fatal(err)
	}
	post("m2", "after the repair")
	if _, err := frWait(e.f, "discord", 45*time.Second, func(v frView) bool { return v.holding("after the repair") == 1 }); err != nil {
		t.Fatalf("the outbox put back was not posted: %v", err)
	}
	if n := frSnapshot(e.f, "discord").holding("planted by another uid"); n != 0 {
		t.Fatalf("the file in the linked directory was posted %d times", n)
	}
}

// waitStatusWithin is waitStatus bound by d instead of e2eDeadline, for
// what waits on a daemon's slower timers.
func (e *e2e) waitStatusWithin(d time.Duration, what string, cond func(*reconcile.Status) bool) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	dir := filepath.Dir(reconcile.StatusPath(e.agentDir))
	waitDirEvents(e.t, ctx, dir, func() bool {
		st, err := reconcile.ReadStatus(e.agentDir)
		return err == nil && cond(st)
	}, "status.json "+what)
}

// holding is how many of the bot's messages contain text (a level's mark
// may come before it).
func (v frView) holding(text string) int {
	n := 0
	for _, p := range v.posts {
		if strings.Contains(p.text, text) {
			n++
		}
	}
	return n
}
