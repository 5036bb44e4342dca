package reconcile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// memHolds are a fleet's holds in memory.
type memHolds map[string]Hold

func (m memHolds) Holds() (map[string]Hold, error) {
	out := map[string]Hold{}
	for k, v := range m {
		out[k] = v
	}
	return out, nil
}
func (m memHolds) Hold(name string) (*Hold, error) { return holdOf(m, name), nil }
func (m memHolds) SetHold(name string, h *Hold) (bool, error) {
	cur := holdOf(m, name)
	if h == nil {
		delete(m, name)
		return cur != nil, nil
	}
	next, changed := h.Merged(cur)
	m[name] = next
	return changed, nil
}
func (m memHolds) Unhold(name string) (bool, error) { return m.SetHold(name, nil) }
func (memHolds) Shared() bool                       { return true }

// A name held in this machine's holds.json from before the fleet kept
// holds stays held in a fleet (an upgrade starts nothing an operator
// stopped); start lets it go in both places; a new hold goes to the
// fleet; a holds.json that cannot be read is an error, never "not held".
func TestFleetHoldsKeepWhatWasHeldBefore(t *testing.T) {
	dir := privateAgentDir(t)
	if err := os.MkdirAll(filepath.Dir(HoldsPath(dir)), 0o700); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := FileHolds(dir).SetHold("old", &Hold{Since: since}); err != nil {
		t.Fatal(err)
	}
	fleet := memHolds{"new": {Since: since, Machine: "m2"}}
	h := FleetHolds(fleet, dir)
	all, err := h.Holds()
	if err != nil || len(all) != 2 {
		t.Fatalf("Holds = %v, %v; want old and new", all, err)
	}
	if got, err := h.Hold("old"); err != nil || got == nil {
		t.Fatalf("Hold(old) = %v, %v: the hold from before the fleet is lost", got, err)
	}
	if _, err := h.SetHold("third", &Hold{Since: since, Machine: "m1"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := fleet["third"]; !ok {
		t.Error("a new hold did not go to the fleet")
	}
	if changed, err := h.SetHold("old", nil); !changed || err != nil {
		t.Fatalf("start of old: %v, %v", changed, err)
	}
	if got, _ := h.Hold("old"); got != nil {
		t.Errorf("old is still held after start: %+v", got)
	}
	if err := os.WriteFile(HoldsPath(dir), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Hold("old"); err == nil {
		t.Error("an unreadable holds.json reads as not held")
	}
}
