package systemtest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
	"gjc.dev/reconciler/pkg/reconcile"
)

// A hold is the fleet's, on the embedded three-member cluster: see
// fleetHoldSurvivesTheOwnersKill.
func TestFleetHoldSurvivesTheOwnersKill(t *testing.T) {
	fleetHoldSurvivesTheOwnersKill(t, holdFleet(t))
}

// The same on a three-member cluster of an installed etcd binary
// ($RECONCILER_TEST_ETCD, else etcd on the PATH: CI installs Debian's),
// skipped with the reason when there is none.
func TestFleetHoldSurvivesTheOwnersKillOnInstalledEtcd(t *testing.T) {
	bin := os.Getenv(etcdtest.BinaryEnv)
	if bin == "" {
		p, err := exec.LookPath("etcd")
		if err != nil {
			t.Skipf("no etcd binary in $%s nor on the PATH: the hold is checked on the embedded cluster only", etcdtest.BinaryEnv)
		}
		bin = p
	}
	t.Setenv(etcdtest.BinaryEnv, bin)
	fleetHoldSurvivesTheOwnersKill(t, holdFleet(t))
}

// holdFleet is three machines running bot on a three-member cluster.
func holdFleet(t *testing.T) *fleet {
	fl := newFleet(t, fleetOptions{members: 3}, object{name: "bot", provider: "discord", generation: 1})
	for i := range 3 {
		fl.add(fmt.Sprintf("m%d", i+1))
	}
	for _, m := range fl.machines {
		fl.start(m)
	}
	return fl
}

// fleetHoldSurvivesTheOwnersKill: a stop on a machine that does not run
// bot holds it on every machine, and the machine that runs it stops it;
// kill -9 of that machine, and no machine starts bot again, well past a
// failover's time; status on every machine shows it Held by the machine
// whose stop set it; start on a machine that does not lead it lets go of it and bot
// runs again.
func fleetHoldSurvivesTheOwnersKill(t *testing.T, fl *fleet) {
	waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	fl.waitRecords("bot healthy", []string{"bot"}, func(st *ownership.State) bool { return st.TransportHealthy && st.StoppedAt == nil })
	owner := fl.machine(fl.holder("bot").Machine)
	var others []*fleetMachine
	for _, m := range fl.machines {
		if m != owner {
			others = append(others, m)
		}
	}
	stopper := others[0]

	r := runBinary(t, nil, append([]string{"stop", "bot", "--agent-dir", stopper.e.agentDir}, fl.args(stopper)...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "held stopped on every machine") {
		t.Fatalf("stop on %s, while %s runs bot: exit %d, %q %q; want 0, held on every machine", stopper.id, owner.id, r.code, r.stdout, r.stderr)
	}
	stopped := waitDiscord(t, fl.f, "bot stopped by "+owner.id, func(s fakediscord.TokenStats) bool { return s.Live == 0 })
	var hold ownership.Hold
	resp, err := fl.cli.Get(context.Background(), path.Join(etcdstore.DefaultPrefix, "bot", "hold"))
	if err != nil || len(resp.Kvs) != 1 || json.Unmarshal(resp.Kvs[0].Value, &hold) != nil || hold.Machine != stopper.id {
		t.Fatalf("the hold in etcd: %v, %v; want one set by %s", resp, err, stopper.id)
	}

	fl.crash(owner, "bot")
	time.Sleep(3*fl.ttl + 2*time.Second) // past a failover: the lease, a new leader, a start
	if s := fl.f.discord.Snapshot().Tokens[discordToken]; s.Live != 0 || s.Identifies != stopped.Identifies {
		t.Fatalf("bot started again after %s was killed, though held: %+v", owner.id, s)
	}
	leader := ""
	for _, m := range others {
		r := runBinary(t, nil, append([]string{"status", "-o", "json", "bot", "--agent-dir", m.e.agentDir}, fl.args(m)...)...)
		var st reconcile.Status
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || len(st.Daemons) != 1 {
			t.Fatalf("status on %s: exit %d, %v\n%s%s", m.id, r.code, err, r.stdout, r.stderr)
		}
		d := st.Daemons[0]
		if d.Phase != reconcile.PhaseHeld || !strings.Contains(d.Message, "on machine "+stopper.id) {
			t.Errorf("status on %s: %s %s %q; want Held by %s", m.id, d.Phase, d.Reason, d.Message, stopper.id)
		}
		if d.Election != nil {
			leader = d.Election.Leader
		}
	}
	// Started where it is not led, when the status says who leads: the
	// leader starts it.
	starter := others[1]
	if leader == starter.id {
		starter = others[0]
	}

	r = runBinary(t, nil, append([]string{"start", "bot", "--agent-dir", starter.e.agentDir}, fl.args(starter)...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "daemon") {
		t.Fatalf("start on %s: exit %d, %q %q; want 0, bot started by whichever machine leads it", starter.id, r.code, r.stdout, r.stderr)
	}
	t.Logf("start on %s (%s leads): %s", starter.id, leader, r.stdout)
	waitDiscord(t, fl.f, "bot running again", func(s fakediscord.TokenStats) bool {
		return s.Live == 1 && s.Identifies+s.Resumes > stopped.Identifies+stopped.Resumes
	})
}
