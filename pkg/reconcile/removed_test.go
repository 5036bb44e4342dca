package reconcile

import (
	"slices"
	"testing"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/ownership"
)

// A name no spec declares and this reconciler does not manage leaves the
// status only if this reconciler pruned it and nothing of it runs: a
// record that is absent or stopped (proven gone), no owner held for it
// still running. Anything else is reported Unmanaged.
func TestOffTable(t *testing.T) {
	live := ownership.Classification{Class: ownership.ClassCompatible, Signalable: true, Health: ownership.HealthHealthy}
	cases := []struct {
		name        string
		removed     bool
		cls         ownership.Classification
		trackedRuns bool
		want        bool
	}{
		{"pruned, no record", true, ownership.Classification{Class: ownership.ClassAbsent}, false, true},
		{"pruned, stopped record", true, ownership.Classification{Class: ownership.ClassStopped}, false, true},
		{"pruned, a daemon runs there again", true, live, false, false},
		{"pruned, a drifted daemon runs there", true, ownership.Classification{Class: ownership.ClassDrifted, Signalable: true}, false, false},
		{"pruned, released but still exiting", true, ownership.Classification{Class: ownership.ClassStopped, AmbiguouslyLive: true}, false, false},
		{"pruned, record gone but its owner still runs", true, ownership.Classification{Class: ownership.ClassAbsent}, true, false},
		{"pruned, malformed record", true, ownership.Classification{Class: ownership.ClassMalformed, AmbiguouslyLive: true}, false, false},
		{"never ours, stopped record", false, ownership.Classification{Class: ownership.ClassStopped}, false, false},
		{"never ours, no record", false, ownership.Classification{Class: ownership.ClassAbsent}, false, false},
		{"never ours, live", false, live, false, false},
	}
	for _, tc := range cases {
		if got := offTable(tc.removed, tc.cls, tc.trackedRuns); got != tc.want {
			t.Errorf("%s: offTable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The inventory notes a pruned name removed, forgets that once the name is
// managed again or its dir is gone, and keeps it across a read.
func TestInventoryRemovedNames(t *testing.T) {
	agentDir := privateAgentDir(t)
	load := func() *inventory {
		t.Helper()
		inv, err := loadInventory(InventoryPath(agentDir), logr.Discard())
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	inv := load()
	for _, n := range []string{"a", "b"} {
		if err := inv.add(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := inv.remove("a"); err != nil {
		t.Fatal(err)
	}
	again := load()
	if again.has("a") || !again.wasRemoved("a") || !again.has("b") || again.wasRemoved("b") {
		t.Fatalf("after pruning a: managed %q, removed %q", again.list(), again.removedList())
	}
	if err := again.add("a"); err != nil {
		t.Fatal(err)
	}
	if got := load(); !got.has("a") || got.wasRemoved("a") {
		t.Errorf("a declared again: managed %q, removed %q", got.list(), got.removedList())
	}
	if err := again.remove("a"); err != nil {
		t.Fatal(err)
	}
	if err := again.forgetRemoved("a"); err != nil {
		t.Fatal(err)
	}
	if got := load(); got.wasRemoved("a") || !slices.Equal(got.list(), []string{"b"}) {
		t.Errorf("a forgotten: managed %q, removed %q", got.list(), got.removedList())
	}
}
