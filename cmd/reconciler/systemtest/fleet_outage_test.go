package systemtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/ownership"
)

// Every member of the cluster stops for longer than a lease, and starts
// again on its data. The daemons gave up their connections when their
// leases could no longer be renewed, and exited; the loops that spawned
// them reaped them. Once the cluster answers, the bots are back within
// the lease TTL plus their ready time: a loop that reaped its daemon
// knows it exited, so it neither stops it again nor waits out its lease
// or a revoked lock, and no message calls its pid live.
func TestFleetRecoversFromAFullEtcdOutageWithinALease(t *testing.T) {
	const ttl = 10 * time.Second // the default
	const outage = 2 * ttl
	names := []string{"bot", "sbot"}
	fl := newFleet(t, fleetOptions{members: 3, ttl: ttl},
		object{name: "bot", provider: "discord", generation: 1}, object{name: "sbot", provider: "slack", generation: 1})
	for i := range 3 {
		fl.start(fl.add(fmt.Sprintf("m%d", i+1)))
	}
	waitDiscord(t, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	waitSlack(t, fl.f, "one live socket", func(s fakeslack.AppStats) bool { return s.Live == 1 })
	fl.waitRecords("both healthy", names, func(st *ownership.State) bool { return st.TransportHealthy && st.StoppedAt == nil })
	var lost []string
	for _, n := range names {
		lost = append(lost, fl.holder(n).OwnerID)
	}
	before := fl.f.discord.Snapshot().Tokens[discordToken]
	beforeSlack := fl.f.slack.Snapshot().Apps[slackApp]

	cut := time.Now()
	fl.cluster.StopAll()
	// The daemons disconnect on their own once their leases cannot be
	// renewed, well within the outage.
	waitDiscord(t, fl.f, "the session to end in the outage", func(s fakediscord.TokenStats) bool { return s.Live == 0 })
	waitSlack(t, fl.f, "the socket to close in the outage", func(s fakeslack.AppStats) bool { return s.Live == 0 })
	t.Logf("outage: both disconnected %s after it began", time.Since(cut).Round(time.Millisecond))
	time.Sleep(time.Until(cut.Add(outage)))

	restarted := time.Now()
	if err := fl.cluster.RestartAll(); err != nil {
		t.Fatal(err)
	}
	answered := fl.waitAnswers()
	t.Logf("etcd answers again %s after the outage began, %s after its members were started again", answered.Sub(cut).Round(time.Millisecond), answered.Sub(restarted).Round(time.Millisecond))
	waitDiscord(t, fl.f, "a session after the outage", func(s fakediscord.TokenStats) bool {
		return s.Live == 1 && s.Identifies+s.Resumes > before.Identifies+before.Resumes
	})
	discordBack := time.Since(answered)
	waitSlack(t, fl.f, "a socket after the outage", func(s fakeslack.AppStats) bool { return s.Live == 1 && s.Connections > beforeSlack.Connections })
	slackBack := time.Since(answered)
	t.Logf("after etcd answered: bot back in %s, sbot in %s (%s and %s after its members were started again; lease TTL %s)",
		discordBack.Round(time.Millisecond), slackBack.Round(time.Millisecond),
		(discordBack + answered.Sub(restarted)).Round(time.Millisecond), (slackBack + answered.Sub(restarted)).Round(time.Millisecond), ttl)
	// The ready time of a daemon against the fakes is well under 3 s here.
	if bound := ttl + 3*time.Second; max(discordBack, slackBack) > bound {
		t.Errorf("the bots were back %s and %s after etcd answered, over the lease TTL plus the ready time (%s)", discordBack, slackBack, bound)
	}
	for _, m := range fl.machines {
		logs := m.loop.logs.String()
		for _, id := range lost {
			if l := lineOf(logs, `"stopping owner"`); strings.Contains(l, id) {
				t.Errorf("%s's loop stopped %s, which had exited and been reaped: %s", m.id, id, l)
			}
		}
		if l := lineOf(logs, "is live but"); l != "" {
			t.Errorf("%s's loop calls a pid live after the outage: %s", m.id, l)
		}
	}
	if d := fl.f.discord.Snapshot().Tokens[discordToken]; d.MaxLive != 1 {
		t.Errorf("fake Discord saw %d live sessions at once, want never more than 1", d.MaxLive)
	}
	if s := fl.f.slack.Snapshot().Apps[slackApp]; s.MaxLive != 1 {
		t.Errorf("fake Slack saw %d live sockets at once, want never more than 1", s.MaxLive)
	}
}

// waitAnswers returns when the cluster answers a read again: asked by a
// new client each time, which no back-off of an earlier failure delays.
func (fl *fleet) waitAnswers() time.Time {
	fl.t.Helper()
	deadline := time.Now().Add(e2eDeadline)
	for time.Now().Before(deadline) {
		cli, err := clientv3.New(clientv3.Config{Endpoints: fl.cluster.Endpoints(), Logger: zap.NewNop()})
		if err != nil {
			fl.t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err = cli.Get(ctx, "/")
		cancel()
		_ = cli.Close()
		if err == nil {
			return time.Now()
		}
	}
	fl.t.Fatalf("the cluster did not answer within %s of its restart", e2eDeadline)
	return time.Time{}
}
