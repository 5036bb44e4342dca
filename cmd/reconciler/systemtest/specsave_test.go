package systemtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// specDirE2E is an e2e world whose loop reads a --spec directory.
func specDirE2E(t *testing.T) (*e2e, string) {
	t.Helper()
	e := newE2E(t)
	dir := filepath.Join(e.agentDir, "specs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return e, dir
}

func countMsg(lines []map[string]any, msg string) int {
	n := 0
	for _, l := range lines {
		if l["msg"] == msg {
			n++
		}
	}
	return n
}

// An editor's save in a spec dir (the old file renamed to a backup, then the
// new one written) with a gap longer than the loop's settle time leaves every
// daemon of that file running: same pid, same owner, no prune.
func TestLoopSpecDirSaveKeepsDaemons(t *testing.T) {
	t.Parallel()
	e, dir := specDirE2E(t)
	e.specPath = filepath.Join(dir, "bots.yaml")
	e.writeSpec(bothBots...)
	loop := e.startLoop("--spec", dir)
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	type owner struct {
		pid int
		id  string
	}
	before := map[string]owner{}
	for _, name := range []string{"discord", "slack"} {
		st := e.state(name)
		before[name] = owner{st.PID, st.OwnerID}
	}
	content, err := os.ReadFile(e.specPath)
	if err != nil {
		t.Fatal(err)
	}

	reads := countMsg(loop.logs.logLines(), "spec changed")
	if err := os.Rename(e.specPath, e.specPath+"~"); err != nil {
		t.Fatal(err)
	}
	// The loop has looked at the dir while the file was gone.
	loop.logs.waitLog(t, "the spec re-read without bots.yaml", func(l []map[string]any) bool { return countMsg(l, "spec changed") > reads })
	gone := len(loop.logs.logLines())
	if err := os.WriteFile(e.specPath, append(content, "# saved\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	loop.logs.waitLog(t, "the saved bots.yaml read", func(l []map[string]any) bool {
		for _, m := range l[gone:] {
			if m["msg"] == "spec changed" && m["valid"] == true {
				return true
			}
		}
		return false
	})
	e.waitStatus("valid, both ready", func(s *reconcile.Status) bool { return s.SpecValid && countReady(s) == 2 })

	for name, was := range before {
		if st := e.state(name); st.PID != was.pid || st.OwnerID != was.id {
			t.Errorf("%s was replaced by a save: pid %d owner %s -> pid %d owner %s", name, was.pid, was.id, st.PID, st.OwnerID)
		}
	}
	lines := loop.logs.logLines()
	if n := countMsg(lines, "stopping owner"); n != 0 {
		t.Errorf("%d owners stopped because of a save", n)
	}
	if n := countMsg(lines, "spawned daemon"); n != 2 {
		t.Errorf("%d spawns, want the first 2 only", n)
	}
}

// A file really removed from a spec dir is pruned, but only once it has
// stayed gone for the grace period.
func TestLoopSpecDirRemovedFileIsPruned(t *testing.T) {
	t.Parallel()
	e, dir := specDirE2E(t)
	e.specPath = filepath.Join(dir, "discord.yaml")
	e.writeSpec(bothBots[0])
	slackFile := filepath.Join(dir, "slack.yaml")
	e.specPath = slackFile
	e.writeSpec(bothBots[1])
	// No resync: the look after the grace must come by itself.
	loop := e.startLoop("--spec", dir, "--resync-period", "1h")
	e.waitStatus("both ready", func(s *reconcile.Status) bool { return countReady(s) == 2 })
	discord := e.state("discord").OwnerID
	exited := watchExit(t, e.state("slack"))

	removed := time.Now()
	if err := os.Remove(slackFile); err != nil {
		t.Fatal(err)
	}
	var aliveUntil time.Time
	select {
	case at, ok := <-exited:
		if !ok {
			t.Fatal("slack was not pruned")
		}
		aliveUntil = at
	case <-time.After(e2eDeadline):
		t.Fatalf("slack not pruned within %v of its file's removal", e2eDeadline)
	}
	if d := aliveUntil.Sub(removed); d < spec.DefaultRemoveGrace {
		t.Errorf("slack pruned within %v of its file's removal, before the %v grace", d, spec.DefaultRemoveGrace)
	}
	// A pruned name leaves the inventory and status.json with the pass
	// that prunes it, so the prune is looked for in the log.
	loop.logs.waitLog(t, "slack pruned", func(l []map[string]any) bool {
		for _, m := range l {
			if m["msg"] == "daemon phase" && m["name"] == "slack" && m["reason"] == reconcile.ReasonPruned {
				return true
			}
		}
		return false
	})
	if cur := e.state("discord"); cur.OwnerID != discord || cur.StoppedAt != nil {
		t.Errorf("discord was touched by slack.yaml's removal: %+v", cur)
	}
}
