package systemtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
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
	waitDiscord(t, fl.f, "a session from another machine", func(s fakediscord.TokenStats) bool {
		return s.Live == 1 && s.Identifies+s.Resumes > before.Identifies+before.Resumes
	})
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

// A machine cut off from etcd says so, and says it in time: its loop's
// status reports OwnershipStoreUnreachable within one lease TTL of the
// cut, and `status` from a second shell there answers within the
// request timeout, with a message that says etcd did not answer and
// names the endpoints; nothing about it is "malformed".
func TestFleetPartitionedMachineSaysUnreachableInTime(t *testing.T) {
	tn := newTestNet(t)
	const ttl = 10 * time.Second // the default: the bound is one TTL
	names := []string{"bot", "sbot"}
	fl := newFleet(t, fleetOptions{etcdHost: tn.etcdIP, fakesHost: tn.fakesIP, ttl: ttl},
		object{name: "bot", provider: "discord", generation: 1}, object{name: "sbot", provider: "slack", generation: 1})
	cut := fl.add("m1", tn.wrap()...)
	fl.start(cut)
	cut.e.waitStatus("both running on m1", func(st *reconcile.Status) bool {
		for _, n := range names {
			if d, ok := daemonStatus(st, n); !ok || d.Machine != "m1" || d.Phase != reconcile.PhaseRunning {
				return false
			}
		}
		return true
	})
	unreachable := func(st *reconcile.Status) bool {
		for _, n := range names {
			if d, ok := daemonStatus(st, n); !ok || d.Reason != ownership.ReasonStoreUnreachable {
				return false
			}
		}
		return true
	}

	start := time.Now()
	tn.cut(tn.etcdIP)
	// The loop's own report, in its status.json, watched from the cut on.
	reportedAt := make(chan time.Duration, 1)
	go func() {
		for time.Since(start) < 3*ttl {
			if st, err := reconcile.ReadStatus(cut.e.agentDir); err == nil && unreachable(st) {
				reportedAt <- time.Since(start)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		close(reportedAt)
	}()
	// A second shell's status, asked at once: the loop answers it with a
	// live look, bounded by the request timeout however many names it has.
	const bound = etcdstore.DefaultRequestTimeout + 3*time.Second
	argv := append(append(tn.wrap(), binary, "status", "-o", "json", "--agent-dir", cut.e.agentDir), fl.args(cut)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = cut.e.env
	asked := time.Now()
	r := runCmd(t, cmd)
	answered := time.Since(asked)
	var st reconcile.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status on m1 after the cut: exit %d after %s, %v\n%s%s", r.code, answered, err, r.stdout, r.stderr)
	}
	t.Logf("status on m1 answered %s after it was asked", answered.Round(time.Millisecond))
	if answered > bound {
		t.Errorf("status on m1 answered after %s, over the %s bound", answered, bound)
	}
	if !unreachable(&st) {
		t.Errorf("status on m1 after the cut does not say %s for both names:\n%s", ownership.ReasonStoreUnreachable, r.stdout)
	}
	for _, n := range names {
		d, _ := daemonStatus(&st, n)
		if strings.Contains(d.Message, "malformed") || !strings.Contains(d.Message, "did not answer") || !strings.Contains(d.Message, fl.cluster.Endpoints()[0]) {
			t.Errorf("%s's message after the cut does not say etcd did not answer at %s, or says malformed: %q", n, fl.cluster.Endpoints()[0], d.Message)
		}
	}

	reported, ok := <-reportedAt
	if !ok {
		t.Fatalf("m1's loop did not report %s within %s of the cut", ownership.ReasonStoreUnreachable, 3*ttl)
	}
	t.Logf("m1's loop reported %s %s after the cut (lease TTL %s)", ownership.ReasonStoreUnreachable, reported.Round(time.Millisecond), ttl)
	if reported > ttl {
		t.Errorf("m1's loop reported %s %s after the cut, over one lease TTL (%s)", ownership.ReasonStoreUnreachable, reported, ttl)
	}
	tn.heal(tn.etcdIP)
}
