package systemtest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/reconcile"
	"gjc.dev/reconciler/pkg/spec"
)

// These benchmarks run the real (non-race) binary against the fakes; run
// them through hack/bench. Each reports the median of its samples as a
// metric, since one iteration is one whole scenario.

func reportMedian(b *testing.B, samples []time.Duration, unit string) {
	b.Helper()
	if len(samples) == 0 {
		return
	}
	b.ReportMetric(float64(median(samples).Microseconds())/1000, unit)
	b.ReportMetric(0, "ns/op") // the scenario's wall time says nothing useful
}

// Spawn to healthy: `reconciler daemon` started -> state.json healthy.
func BenchmarkSpawnToHealthy(b *testing.B) {
	for _, provider := range providers {
		b.Run(string(provider), func(b *testing.B) {
			f := startFakes(b)
			var samples []time.Duration
			for i := 0; b.Loop(); i++ {
				dir := b.TempDir()
				cfg := f.config(provider, "bot", 1)
				start := time.Now()
				p := startDaemon(b, dir, cfg, "bench-owner")
				waitRecord(b, ownership.PathsFor(dir, "bot"), "ready", healthy)
				samples = append(samples, time.Since(start))
				_ = p.cmd.Process.Signal(syscall.SIGTERM)
				<-p.done
			}
			reportMedian(b, samples, "ms-median")
		})
	}
}

// Kill -9 of a daemon under the loop -> the replacement's record appears.
func BenchmarkKillToReplacement(b *testing.B) {
	f := startFakes(b)
	var samples []time.Duration
	for b.Loop() {
		e := newE2EWith(b, f)
		e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
		loop := e.startLoop()
		paths := ownership.PathsFor(e.agentDir, "slack")
		waitRecord(b, paths, "ready", healthy)
		old := fsstore.ReadState(paths).State
		start := time.Now()
		_ = syscall.Kill(old.PID, syscall.SIGKILL)
		waitRecord(b, paths, "ready", func(r ownership.Record) bool { return r.State != nil && r.State.OwnerID != old.OwnerID })
		samples = append(samples, time.Since(start))
		loop.stop()
		e.killDaemons()
	}
	reportMedian(b, samples, "ms-median")
}

// A spec edit (generation raised) under the loop -> the replacement healthy.
func BenchmarkSpecEditToHealthy(b *testing.B) {
	for _, provider := range providers {
		b.Run(string(provider), func(b *testing.B) {
			f := startFakes(b)
			e := newE2EWith(b, f)
			gen := int64(1)
			e.writeSpec(object{name: "bot", provider: string(provider), generation: gen})
			e.startLoop()
			paths := ownership.PathsFor(e.agentDir, "bot")
			waitRecord(b, paths, "ready", healthy)
			var samples []time.Duration
			for b.Loop() {
				gen++
				start := time.Now()
				e.writeSpec(object{name: "bot", provider: string(provider), generation: gen})
				want := gen
				waitRecord(b, paths, "ready", func(r ownership.Record) bool {
					return healthy(r) && r.State.Generation == spec.Generation(want).Opt()
				})
				samples = append(samples, time.Since(start))
			}
			reportMedian(b, samples, "ms-median")
		})
	}
}

// An idle loop with two healthy daemons (production heartbeat, 5 s) over a
// window: the loop's wakes by trigger, CPU and RSS; each daemon's CPU and RSS.
func BenchmarkIdle(b *testing.B) {
	window := 60 * time.Second
	if v := os.Getenv("IDLE_WINDOW"); v != "" {
		window, _ = time.ParseDuration(v)
	}
	f := startFakes(b)
	for b.Loop() {
		e := newE2EWith(b, f)
		e.production = true
		e.writeSpec(bothBots...)
		loop := e.startLoop()
		for _, n := range []string{"discord", "slack"} {
			waitRecord(b, ownership.PathsFor(e.agentDir, n), "ready", healthy)
		}
		// Let start-up settle, then measure the window.
		time.Sleep(2 * time.Second) // a measurement window, not a wait for an event
		pids := map[string]int{"loop": loop.cmd.Process.Pid}
		for _, n := range []string{"discord", "slack"} {
			pids[n] = fsstore.ReadState(ownership.PathsFor(e.agentDir, n)).State.PID
		}
		cpu0 := map[string]time.Duration{}
		for k, pid := range pids {
			cpu0[k] = cpuTime(b, pid)
		}
		started := time.Now()
		time.Sleep(window) // the idle window being measured
		for k, pid := range pids {
			cpu := cpuTime(b, pid) - cpu0[k]
			b.ReportMetric(cpu.Seconds(), k+"-cpu-s")
			b.ReportMetric(100*cpu.Seconds()/window.Seconds(), k+"-cpu-%")
			b.ReportMetric(float64(rssKiB(b, pid))/1024, k+"-rss-MiB")
		}
		loop.stop() // writes the wake counters of its whole life
		life := time.Since(started) + 2*time.Second
		st, err := reconcile.ReadStatus(e.agentDir)
		if err != nil {
			b.Fatal(err)
		}
		var wakes []string
		for k, v := range st.Wakes {
			wakes = append(wakes, fmt.Sprintf("%s=%d", k, v))
		}
		slices.Sort(wakes)
		b.Logf("loop wakes over its ~%v life (start-up included): %s", life.Round(time.Second), strings.Join(wakes, " "))
		e.killDaemons()
	}
	b.ReportMetric(0, "ns/op")
}

// cpuTime is utime+stime of a process, from /proc/<pid>/stat.
func cpuTime(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func rssKiB(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}
