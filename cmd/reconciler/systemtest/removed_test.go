package systemtest

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A bot dropped from the spec is stopped and, proven gone, leaves the
// inventory and the status (an event says so), in this pass and every
// later one, also after gc --prune: it is not listed as Unmanaged, which
// would say this reconciler never started it. Declared again, it is
// managed and started again.
func TestRemovedBotLeavesTheStatus(t *testing.T) {
	t.Parallel()
	e := newE2E(t)
	e.writeSpec(bothBots...)
	e.mustConverge()
	slack := e.state("slack")
	exited := watchExit(t, slack)
	e.writeSpec(bothBots[0])
	e.mustConverge()
	<-exited

	base := []string{"--agent-dir", e.agentDir}
	gone := func(when string) {
		t.Helper()
		status, err := reconcile.ReadStatus(e.agentDir)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := daemonStatus(status, "slack"); ok {
			t.Errorf("%s: status.json lists slack: %s %s (%s)", when, d.Phase, d.Reason, d.Message)
		}
		if _, ok := daemonStatus(status, "discord"); !ok {
			t.Errorf("%s: status.json lost discord", when)
		}
		managed, _, err := reconcile.ReadInventory(e.agentDir, logr.Discard())
		if err != nil || slices.Contains(managed, "slack") {
			t.Errorf("%s: the inventory lists %q (%v), want no slack", when, managed, err)
		}
		r := runBinary(t, e.env, append([]string{"status"}, base...)...)
		if r.code != 0 || strings.Contains(r.stdout, "slack") || strings.Contains(r.stdout, "Unmanaged") {
			t.Errorf("%s: status (exit %d) lists slack:\n%s%s", when, r.code, r.stdout, r.stderr)
		}
	}
	gone("after the pruning pass")
	ev := runBinary(t, e.env, append([]string{"events", "slack", "-o", "json"}, base...)...)
	if ev.code != 0 || !strings.Contains(ev.stdout, reconcile.ReasonPruned) || !strings.Contains(ev.stdout, "leaves the inventory and the status") {
		t.Errorf("no event says slack left the status (exit %d):\n%s%s", ev.code, ev.stdout, ev.stderr)
	}
	e.mustConverge()
	gone("after the next pass")
	if r := runBinary(t, e.env, append([]string{"gc", "--prune"}, base...)...); r.code != 0 {
		t.Fatalf("gc --prune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	e.mustConverge()
	gone("after gc --prune and a pass")
	if _, err := os.Stat(e.paths("slack").Dir); err != nil {
		t.Errorf("slack's dir (its bus) went with the prune: %v", err)
	}

	inventory := func() (names, removed []string) {
		t.Helper()
		data, err := os.ReadFile(reconcile.InventoryPath(e.agentDir))
		if err != nil {
			t.Fatal(err)
		}
		var inv struct {
			Names, Removed []string
		}
		if err := json.Unmarshal(data, &inv); err != nil {
			t.Fatalf("inventory %s: %v", data, err)
		}
		return inv.Names, inv.Removed
	}
	if _, removed := inventory(); !slices.Contains(removed, "slack") {
		t.Errorf("the inventory does not note slack removed: %q", removed)
	}
	// Its dir removed by hand: forgotten at the next pass.
	if err := os.RemoveAll(e.paths("slack").Dir); err != nil {
		t.Fatal(err)
	}
	e.mustConverge()
	if _, removed := inventory(); slices.Contains(removed, "slack") {
		t.Errorf("slack still noted removed once its dir is gone: %q", removed)
	}

	// Declared again: managed and started.
	e.writeSpec(bothBots...)
	e.mustConverge()
	if rec := fsstore.ReadState(e.paths("slack")); !healthy(rec) {
		t.Errorf("slack not running once declared again: %s", rec.Raw)
	}
	if names, removed := inventory(); !slices.Contains(names, "slack") || slices.Contains(removed, "slack") {
		t.Errorf("inventory once slack is declared again: names %q, removed %q", names, removed)
	}
}
