package relay_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBacklogPerMessage: a backlog already in the outbox when the
// relay starts (one session), to all stored at the fake; the wall time and
// the process's CPU (relay and fake together) per message, for 100 and
// 10,000. Goal (issue 34): the per-message cost independent of the
// backlog, the 10,000 within 20 % of the 100 (ratio-cpu, ratio-wall at
// most 1.2).
func BenchmarkBacklogPerMessage(b *testing.B) {
	sizes := []int{100, 10000}
	wall := make(map[int][]float64)
	cpu := make(map[int][]float64)
	for i := range b.N {
		for _, n := range sizes {
			g := newBenchRig(b, "discord")
			marker := fmt.Sprintf("backlog%d-%d.", i, n)
			messageFiles(b, g.dirs.Outbox, "01BACK", n, 1, marker)
			c0, t0 := cpuTime(b), time.Now()
			g.startNoWait()
			g.waitDelivered(marker, n)
			wall[n] = append(wall[n], float64(time.Since(t0))/float64(time.Millisecond)/float64(n))
			cpu[n] = append(cpu[n], float64(cpuTime(b)-c0)/float64(time.Millisecond)/float64(n))
		}
	}
	small, large := sizes[0], sizes[len(sizes)-1]
	for _, n := range sizes {
		b.ReportMetric(median(wall[n]), fmt.Sprintf("wall-ms/msg@%d", n))
		b.ReportMetric(median(cpu[n]), fmt.Sprintf("cpu-ms/msg@%d", n))
	}
	b.ReportMetric(median(wall[large])/median(wall[small]), "ratio-wall")
	b.ReportMetric(median(cpu[large])/median(cpu[small]), "ratio-cpu")
	b.ReportMetric(0, "ns/op")
}

// waitDelivered waits until the relay holds nothing pending and the fake
// stores n messages with marker. It polls the relay's pending count (a
// 5 ms tick), not the fake's change signal: each of the fake's snapshots
// copies every message stored, which would charge the harness's own
// O(backlog) per message to the relay.
func (g *benchRig) waitDelivered(marker string, n int) {
	g.b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if g.r.Health().Pending == 0 {
			count := 0
			for _, m := range g.fd.Snapshot().Messages {
				if strings.Contains(m.Content, marker) {
					count++
				}
			}
			if count >= n {
				return
			}
		}
		if time.Now().After(deadline) {
			g.b.Fatalf("%d pending after 10 minutes", g.r.Health().Pending)
		}
	}
}

// cpuTime is the process's user and system CPU so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
