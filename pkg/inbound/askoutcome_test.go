package inbound

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// Killed after the outcome was written and before its record, with the
// question pruned from sent/ meanwhile (SentKeep is 24 h, an ask may
// wait 24 h): the outcome made again would differ from the one written;
// the one written stands, and the decision completes.
func TestOutcomeWrittenBeforeAPruneCompletes(t *testing.T) {
	r := newRig(t)
	r.start()
	r.posted(askMsg("01JP", time.Now().Add(time.Hour)), "R1")
	if v := r.click("alice", bus.ChoiceData("01JP", 0), "R1"); v.Kind != Decided {
		t.Fatalf("verdict %+v", v)
	}
	r.stop()
	// The crash: the outcome's record never became durable.
	path := r.d.InboundJournalPath()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, `"op":"outcome"`) {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	// The prune.
	if err := os.Remove(filepath.Join(r.d.Sent, "01JP.json")); err != nil {
		t.Fatal(err)
	}
	r.start()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if h := r.in.Health(); h.Error == "" && h.Failures == 0 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		break
	}
	if h := r.in.Health(); h.Error != "" {
		t.Fatalf("the decision's completion fails for good: %s (failures %d)", h.Error, h.Failures)
	}
}
