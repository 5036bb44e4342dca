package systemtest

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership"
)

// describe in a fleet shows the record the fleet's store holds (etcd), not
// a file of this machine: asked on a machine that never ran the daemon and
// has no loop to answer, it names the owner etcd names.
func TestFleetDescribeShowsTheStoresRecord(t *testing.T) {
	fl := newFleet(t, fleetOptions{}, object{name: "bot", provider: "discord", generation: 1})
	owner := fl.add("m1")
	other := fl.add("m2") // never started: no loop, no file of bot's
	fl.start(owner)
	waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	fl.waitRecords("bot healthy", []string{"bot"}, func(st *ownership.State) bool { return st.TransportHealthy })
	h := fl.holder("bot")
	if h == nil {
		t.Fatal("nobody holds bot in etcd")
	}
	if _, err := os.Stat(ownership.PathsFor(other.e.agentDir, "bot").State); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s has a state.json of bot (%v): the test would not tell the store from the file", other.id, err)
	}
	// With the spec's token, as an operator's shell has it: the spec is valid.
	desc := runBinary(t, []string{"E2E_DISCORD_TOKEN=" + discordToken}, append([]string{"describe", "bot", "--agent-dir", other.e.agentDir}, fl.args(other)...)...)
	if got := lineOf(desc.stdout, "Owner ID:"); desc.code != 0 || !strings.Contains(got, h.OwnerID) {
		t.Errorf("describe bot on %s (exit %d): Owner ID line %q, want etcd's owner %s:\n%s%s", other.id, desc.code, got, h.OwnerID, desc.stdout, desc.stderr)
	}
}
