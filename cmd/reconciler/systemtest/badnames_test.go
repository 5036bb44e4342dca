package systemtest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/reconcile"
)

// inventory.json names "x/../d1" and "d1/" beside a desired, running d1.
// As paths both are d1's dir: pruning them would stop d1. They are not
// valid names, so --once leaves d1 as it is, prunes nothing, and reports
// each entry as a problem naming the file, in its output and status.json.
func TestOnceIgnoresBadInventoryNames(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "d1", provider: "discord", generation: 1})
	e.mustConverge()
	before := e.state("d1")
	inv := reconcile.InventoryPath(e.agentDir)
	bad := []string{"x/../d1", "d1/"}
	if err := os.WriteFile(inv, []byte(`{"version":1,"names":["d1","x/../d1","d1/"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := e.once()
	if after := e.state("d1"); after.OwnerID != before.OwnerID || after.PID != before.PID || after.StoppedAt != nil {
		t.Fatalf("d1 was touched: pid %d ownerId %s -> pid %d ownerId %s stoppedAt %v\n%s",
			before.PID, before.OwnerID, after.PID, after.OwnerID, after.StoppedAt, r.stdout)
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (a bad inventory entry is a problem to report)\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, reconcile.ReasonPruned) {
		t.Errorf("a bad entry was reported as pruned:\n%s", r.stdout)
	}
	st, err := reconcile.ReadStatus(e.agentDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range st.Daemons {
		if d.Name != "d1" || d.Reason == reconcile.ReasonPruned {
			t.Errorf("status.json has %q (reason %s); want d1 alone, not pruned", d.Name, d.Reason)
		}
	}
	if d, _ := daemonStatus(st, "d1"); !d.Converged || d.OwnerID != before.OwnerID {
		t.Errorf("d1 status %+v, want converged on the same owner", d)
	}
	var entries []string
	for _, p := range st.Problems {
		if p.File != inv {
			t.Errorf("problem %v names %s, want %s", p, p.File, inv)
		}
		entries = append(entries, p.Entry)
		if !strings.Contains(r.stdout, p.String()) {
			t.Errorf("--once did not print %q:\n%s", p, r.stdout)
		}
	}
	slices.Sort(entries)
	if want := slices.Sorted(slices.Values(bad)); !slices.Equal(entries, want) {
		t.Errorf("problems name entries %q, want %q", entries, want)
	}
	var logged int
	for line := range strings.Lines(r.stderr) {
		if strings.Contains(line, `"level":"error"`) && strings.Contains(line, inv) {
			logged++
		}
	}
	if logged != len(bad) {
		t.Errorf("%d error lines name the inventory, want %d:\n%s", logged, len(bad), r.stderr)
	}
	// An operator's status shows them too.
	sr := runBinary(t, e.env, "status", "--agent-dir", e.agentDir)
	for _, n := range bad {
		if !strings.Contains(sr.stdout, "problem: "+inv+": entry \""+n+"\"") {
			t.Errorf("status does not show the problem with %q:\n%s", n, sr.stdout)
		}
	}
	// Never acted on, not even dropped: a person must see the entries.
	if data, err := os.ReadFile(inv); err != nil || !strings.Contains(string(data), `"x/../d1"`) || !strings.Contains(string(data), `"d1/"`) {
		t.Errorf("inventory after the pass: %s (%v); the bad entries must stay", data, err)
	}
}

// An operator's stop or restart of a name no spec could declare is a usage
// error: "x/../d1" must not reach d1's dir, and neither may a daemon's
// --name.
func TestBadNameArgsTouchNothing(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(object{name: "d1", provider: "discord", generation: 1})
	e.mustConverge()
	before := e.state("d1")
	for _, args := range [][]string{{"stop", "x/../d1", "--force"}, {"restart", "d1/"}} {
		if r := runBinary(t, e.env, append(args, "--agent-dir", e.agentDir)...); r.code != 2 || !strings.Contains(r.stderr, "is not a daemon name") {
			t.Errorf("%q: exit %d, want 2 naming the bad name\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if after := e.state("d1"); after.OwnerID != before.OwnerID || after.PID != before.PID || after.StoppedAt != nil {
		t.Errorf("d1 was touched: pid %d ownerId %s -> pid %d ownerId %s", before.PID, before.OwnerID, after.PID, after.OwnerID)
	}
	cfg := e.f.config("discord", "d1", 1)
	cfg.Name = "x/../d1"
	d := startDaemon(t, e.agentDir, cfg, "intruder")
	if code := d.waitExit(t, e2eDeadline); code != 2 {
		t.Errorf("daemon --name x/../d1: exit %d, want 2\n%s", code, d.output.String())
	}
	if after := e.state("d1"); after.OwnerID != before.OwnerID {
		t.Errorf("d1's record was taken over: ownerId %s", after.OwnerID)
	}
}
