package systemtest

import (
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The machine that runs both bots is cut off from etcd, in its own network
// namespace, and keeps its way to the chat service. Its daemons disconnect
// on their own, before their leases can expire, and only then does
// another machine's daemon connect: the fakes, which count live sessions
// per token at every instant, never see two. Healed, the cut-off machine
// stands by and starts nothing.
func TestFleetPartitionDisconnectsBeforeAnotherConnects(t *testing.T) {
	tn := newTestNet(t)
	const ttl = 4 * time.Second
	fl := newFleet(t, fleetOptions{etcdHost: tn.etcdIP, fakesHost: tn.fakesIP, ttl: ttl},
		object{name: "bot", provider: "discord", generation: 1}, object{name: "sbot", provider: "slack", generation: 1})
	cut := fl.add("m1", tn.wrap()...)
	fl.start(cut)
	waitDiscord(t, fl.f, "m1's session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	waitSlack(t, fl.f, "m1's socket", func(s fakeslack.AppStats) bool { return s.Live == 1 })
	for _, n := range []string{"bot", "sbot"} {
		if h := fl.holder(n); h == nil || h.Machine != "m1" {
			t.Fatalf("%s is held by %+v, want m1", n, h)
		}
	}
	for _, id := range []string{"m2", "m3"} {
		fl.start(fl.add(id))
	}
	for _, m := range fl.machines[1:] {
		m.e.waitStatus("both running on m1, seen from "+m.id, func(st *reconcile.Status) bool {
			for _, n := range []string{"bot", "sbot"} {
				if d, ok := daemonStatus(st, n); !ok || d.Machine != "m1" || d.Phase != reconcile.PhaseRunning {
					return false
				}
			}
			return true
		})
	}
	before := fl.f.discord.Snapshot().Tokens[discordToken]
	beforeSlack := fl.f.slack.Snapshot().Apps[slackApp]

	start := time.Now()
	tn.cut(tn.etcdIP)
	waitDiscord(t, fl.f, "m1's session to end", func(s fakediscord.TokenStats) bool { return s.Live == 0 })
	waitSlack(t, fl.f, "m1's socket to close", func(s fakeslack.AppStats) bool { return s.Live == 0 })
	gone := time.Since(start)
	waitDiscord(t, fl.f, "a session from another machine", func(s fakediscord.TokenStats) bool { return s.Live == 1 && s.Identifies > before.Identifies })
	waitSlack(t, fl.f, "a socket from another machine", func(s fakeslack.AppStats) bool { return s.Live == 1 && s.Connections > beforeSlack.Connections })
	took := time.Since(start)
	t.Logf("partition: m1's connections gone %s after the cut, both names live elsewhere after %s (lease TTL %s)", gone, took, ttl)
	for _, n := range []string{"bot", "sbot"} {
		if h := fl.holder(n); h == nil || h.Machine == "m1" {
			t.Errorf("%s is held by %+v after the partition, want m2 or m3", n, h)
		}
	}
	if bound := ttl + 30*time.Second; took > bound {
		t.Errorf("failover after the partition took %s, over the %s bound", took, bound)
	}

	// Healed, m1 finds both running elsewhere and stands by.
	tn.heal(tn.etcdIP)
	cut.e.waitStatus("m1 sees both running elsewhere", func(st *reconcile.Status) bool {
		for _, n := range []string{"bot", "sbot"} {
			if d, ok := daemonStatus(st, n); !ok || d.Machine == "" || d.Machine == "m1" || d.Phase != reconcile.PhaseRunning {
				return false
			}
		}
		return true
	})
	if d := fl.f.discord.Snapshot().Tokens[discordToken]; d.MaxLive != 1 || d.Live != 1 {
		t.Errorf("fake Discord: %d live, at most %d at once; want 1 and never more than 1", d.Live, d.MaxLive)
	}
	if s := fl.f.slack.Snapshot().Apps[slackApp]; s.MaxLive != 1 || s.Live != 1 {
		t.Errorf("fake Slack: %d live, at most %d at once; want 1 and never more than 1", s.Live, s.MaxLive)
	}
}
