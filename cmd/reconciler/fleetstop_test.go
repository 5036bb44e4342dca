package main

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
