package systemtest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/reconcile"
)

// The fleet's figures (DESIGN 10), at the default lease TTL (10 s) and the
// daemons' real heartbeat (5 s): how long a name is down when the machine
// that runs it is lost, and what a daemon costs the cluster. Run them
// through hack/bench.

const benchTTL = 10 * time.Second

// benchFleet is three machines, each in a network namespace of its own,
// so any of them can be the one cut off; etcd and the fakes listen on the
// first one's host side.
func benchFleet(b *testing.B, objs ...object) (*fleet, []*testNet) {
	var nets []*testNet
	for range 3 {
		nets = append(nets, newTestNet(b))
	}
	if len(objs) == 0 {
		objs = []object{{name: "bot", provider: "discord", generation: 1}}
	}
	fl := newFleet(b, fleetOptions{etcdHost: nets[0].etcdIP, fakesHost: nets[0].fakesIP, ttl: benchTTL}, objs...)
	for i, tn := range nets {
		m := fl.add(fmt.Sprintf("m%d", i+1), tn.wrap()...)
		m.e.production = true
		fl.start(m)
	}
	waitDiscord(b, fl.f, "one live session", func(s fakediscord.TokenStats) bool { return s.Live == 1 })
	return fl, nets
}

// waitSeenEverywhere waits until every machine's loop sees bot running on
// its current holder: the fleet is whole again.
func (fl *fleet) waitSeenEverywhere() {
	h := fl.holder("bot")
	for _, m := range fl.machines {
		m.e.waitStatus("bot on "+h.Machine+" seen from "+m.id, func(st *reconcile.Status) bool {
			d, ok := daemonStatus(st, "bot")
			return ok && d.Machine == h.Machine && d.Phase == reconcile.PhaseRunning
		})
	}
}

func quantile(samples []time.Duration, q float64) time.Duration {
	s := append([]time.Duration(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func reportFailovers(b *testing.B, samples []time.Duration) {
	b.ReportMetric(quantile(samples, 0.5).Seconds(), "s-median")
	b.ReportMetric(quantile(samples, 1).Seconds(), "s-max")
	b.ReportMetric(0, "ns/op")
	var all []string
	for _, s := range samples {
		all = append(all, s.Round(10*time.Millisecond).String())
	}
	b.Logf("failovers: %s", strings.Join(all, " "))
}

// Kill -9 of the machine that runs the bot (its loop and its daemon) ->
// a session from another machine at the fake. The lost machine is started
// again before the next round.
func BenchmarkFleetFailoverAfterKill(b *testing.B) {
	fl, _ := benchFleet(b)
	var samples []time.Duration
	for b.Loop() {
		fl.waitSeenEverywhere()
		h := fl.holder("bot")
		before := fl.f.discord.Snapshot().Tokens[discordToken]
		m := fl.machine(h.Machine)
		start := time.Now()
		fl.crash(m, "bot")
		waitDiscord(b, fl.f, "a session elsewhere", func(s fakediscord.TokenStats) bool {
			return s.Live == 1 && s.Identifies+s.Resumes > before.Identifies+before.Resumes
		})
		samples = append(samples, time.Since(start))
		fl.start(m)
	}
	if d := fl.f.discord.Snapshot().Tokens[discordToken]; d.MaxLive != 1 {
		b.Fatalf("fake Discord saw %d live sessions at once", d.MaxLive)
	}
	reportFailovers(b, samples)
}

// The machine that runs the bot cut from etcd (and not from the fake) ->
// a session from another machine at the fake. Healed before the next
// round.
func BenchmarkFleetFailoverAfterPartition(b *testing.B) {
	fl, nets := benchFleet(b)
	var samples []time.Duration
	for b.Loop() {
		fl.waitSeenEverywhere()
		h := fl.holder("bot")
		before := fl.f.discord.Snapshot().Tokens[discordToken]
		var tn *testNet
		for i, m := range fl.machines {
			if m.id == h.Machine {
				tn = nets[i]
			}
		}
		start := time.Now()
		tn.cut(nets[0].etcdIP)
		waitDiscord(b, fl.f, "a session elsewhere", func(s fakediscord.TokenStats) bool {
			return s.Live == 1 && s.Identifies+s.Resumes > before.Identifies+before.Resumes
		})
		samples = append(samples, time.Since(start))
		tn.heal(nets[0].etcdIP)
	}
	if d := fl.f.discord.Snapshot().Tokens[discordToken]; d.MaxLive != 1 {
		b.Fatalf("fake Discord saw %d live sessions at once", d.MaxLive)
	}
	reportFailovers(b, samples)
}

// grpcReceived is the etcd server's count of requests received, by method
// (a stream's every message counts), from its Prometheus metrics.
func grpcReceived(b *testing.B) map[string]float64 {
	b.Helper()
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "grpc_server_msg_received_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[label(m, "grpc_method")] += m.GetCounter().GetValue()
		}
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// A steady fleet of three machines, nothing posted: the requests the
// cluster receives per minute, in all and by method, over a window of
// FLEET_WINDOW (default 60 s), with one daemon and with two. The
// difference is what one daemon costs: its heartbeat's transaction, its
// lease renewals, its control reads, and the loops' looks at its record.
func BenchmarkFleetEtcdRequestsAtSteadyState(b *testing.B) {
	window := time.Minute
	if v := os.Getenv("FLEET_WINDOW"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("FLEET_WINDOW: %v", err)
		}
		window = d
	}
	for _, objs := range [][]object{
		{{name: "bot", provider: "discord", generation: 1}},
		{{name: "bot", provider: "discord", generation: 1}, {name: "sbot", provider: "slack", generation: 1}},
	} {
		b.Run(fmt.Sprintf("daemons=%d", len(objs)), func(b *testing.B) {
			fl, _ := benchFleet(b, objs...)
			fl.waitSeenEverywhere()
			if len(objs) > 1 {
				waitSlack(b, fl.f, "the Slack daemon", func(s fakeslack.AppStats) bool { return s.Live == 1 })
			}
			for b.Loop() {
				before := grpcReceived(b)
				ctx, cancel := context.WithTimeout(context.Background(), window)
				<-ctx.Done()
				cancel()
				after := grpcReceived(b)
				var total float64
				var parts []string
				for method, n := range after {
					d := (n - before[method]) * float64(time.Minute) / float64(window)
					if d > 0 {
						total += d
						parts = append(parts, fmt.Sprintf("%s %.0f", method, d))
					}
				}
				sort.Strings(parts)
				b.ReportMetric(total, "requests/min")
				b.Logf("requests per minute by method (3 loops, %d daemons): %s", len(objs), strings.Join(parts, ", "))
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
