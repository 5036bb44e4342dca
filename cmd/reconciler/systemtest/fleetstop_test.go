package systemtest

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A stop that is refused writes no hold: in a fleet, stop on a machine
// that does not lead the name is refused, nothing sent, and holds nothing
// there, so when the leading machine dies this one takes the bot over
// rather than keep it down.
func TestFleetRefusedStopHoldsNothing(t *testing.T) {
	fl := startFleet(t, 2, object{name: "bot", provider: "discord", generation: 1})
	before := waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	fl.waitRecords("bot healthy", []string{"bot"}, func(st *ownership.State) bool { return st.TransportHealthy && st.StoppedAt == nil })
	owner := fl.machine(fl.holder("bot").Machine)
	var other *fleetMachine
	for _, m := range fl.machines {
		if m != owner {
			other = m
		}
	}
	r := runBinary(t, nil, append([]string{"stop", "bot", "--agent-dir", other.e.agentDir}, fl.args(other)...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "nothing was sent") {
		t.Fatalf("stop on %s, which does not lead bot: exit %d, %q %q; want 1, nothing sent", other.id, r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "held stopped") {
		t.Errorf("a refused stop says it holds the name: %q", r.stdout)
	}
	data, err := os.ReadFile(reconcile.HoldsPath(other.e.agentDir))
	if err == nil {
		var f struct {
			Names map[string]json.RawMessage `json:"names"`
		}
		if err := json.Unmarshal(data, &f); err != nil || f.Names["bot"] != nil {
			t.Fatalf("a refused stop left a hold on %s: %s (%v)", other.id, data, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	fl.crash(owner, "bot")
	waitDiscord(t, fl.f, "bot taken over by "+other.id, func(s fakediscord.TokenStats) bool { return s.Live == 1 && s.Identifies > before.Identifies })
	if h := fl.holder("bot"); h == nil || h.Machine != other.id {
		t.Errorf("bot is held by %+v after %s died, want %s", h, owner.id, other.id)
	}
}

// With nothing running (held stopped where it leads), a stop on another
// machine holds nothing either: the leader may start the name again any
// moment, and a hold there would only keep it down once the leader died.
func TestFleetStopWhereAnotherLeadsHoldsNothing(t *testing.T) {
	fl := startFleet(t, 2, object{name: "bot", provider: "discord", generation: 1})
	fl.waitRecords("bot healthy", []string{"bot"}, func(st *ownership.State) bool { return st.TransportHealthy && st.StoppedAt == nil })
	owner := fl.machine(fl.holder("bot").Machine)
	var other *fleetMachine
	for _, m := range fl.machines {
		if m != owner {
			other = m
		}
	}
	if r := runBinary(t, nil, append([]string{"stop", "bot", "--agent-dir", owner.e.agentDir}, fl.args(owner)...)...); r.code != 0 {
		t.Fatalf("stop on %s, which leads bot: exit %d, %q %q", owner.id, r.code, r.stdout, r.stderr)
	}
	fl.waitRecords("bot stopped", []string{"bot"}, func(st *ownership.State) bool { return st.StoppedAt != nil })
	r := runBinary(t, nil, append([]string{"stop", "bot", "--agent-dir", other.e.agentDir}, fl.args(other)...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "machine "+owner.id+" leads it") {
		t.Fatalf("stop on %s while %s leads the stopped bot: exit %d, %q %q; want 1, naming the leader", other.id, owner.id, r.code, r.stdout, r.stderr)
	}
	if data, err := os.ReadFile(reconcile.HoldsPath(other.e.agentDir)); err == nil && strings.Contains(string(data), `"bot"`) {
		t.Fatalf("a stop where another machine leads left a hold on %s: %s", other.id, data)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
