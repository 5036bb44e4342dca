package systemtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// restartStages is where one restart's time went, each stage as an offset
// from the kill: the loop's exit line for the old process, its spawn line
// for the replacement, the replacement's startedAt (taken just before it
// publishes, after its locks), and the record seen by the benchmark.
type restartStages struct {
	exited, spawned, locked, published time.Duration
	warm                               bool
	// sched is what a warm replacement's threads did from the kill to
	// the publish: ran, and waited to run (on a loaded machine, the
	// larger).
	sched schedDelta
}

// stagesOf reads one round's stages from the loop's log lines and the
// replacement's record. A stage not found stays 0. The log's times and
// startedAt are wall clock, so they are offsets from start's wall clock.
func stagesOf(lines []map[string]any, start time.Time, oldPID int, rec ownership.State, published time.Duration) restartStages {
	s := restartStages{published: published, locked: time.UnixMilli(rec.StartedAt).Sub(start)}
	for _, m := range lines {
		ts, _ := m["ts"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			continue
		}
		switch {
		case m["msg"] == "daemon exited" && m["pid"] == float64(oldPID):
			s.exited = at.Sub(start)
		case m["msg"] == "spawned daemon" && m["ownerId"] == rec.OwnerID:
			s.spawned = at.Sub(start)
			s.warm = m["warm"] == true
		}
	}
	return s
}

// logStages logs each round's stages and the median of each stage's share
// (the time since the stage before), so a -v run of the benchmark shows
// where the restart's median goes.
func logStages(b *testing.B, side string, rounds []restartStages, ofRunsv []time.Duration) {
	b.Helper()
	var exit, spawn, lock, publish, ran, waited []time.Duration
	var lines []string
	for i, s := range rounds {
		exit = append(exit, s.exited)
		spawn = append(spawn, s.spawned-s.exited)
		lock = append(lock, s.locked-s.spawned)
		publish = append(publish, s.published-s.locked)
		ran, waited = append(ran, s.sched.ran), append(waited, s.sched.waited)
		lines = append(lines, fmt.Sprintf("round %2d: runsv %5.1f  exit seen %5.1f  spawned %5.1f  locked %5.1f  published %5.1f ms (warm %v; it ran %.1f, waited to run %.1f ms)",
			i, ms(ofRunsv[i]), ms(s.exited), ms(s.spawned), ms(s.locked), ms(s.published), s.warm, ms(s.sched.ran), ms(s.sched.waited)))
	}
	lines = append(lines, fmt.Sprintf("median share: kill->exit seen %.1f, ->spawned %.1f, ->locked %.1f, ->published %.1f ms; a warm replacement ran %.1f, waited to run %.1f ms",
		ms(median(exit)), ms(median(spawn)), ms(median(lock)), ms(median(publish)), ms(median(ran)), ms(median(waited))))
	b.Logf("%s restart stages (offsets from the kill):\n%s", side, strings.Join(lines, "\n"))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// spread is the min and max of d.
func spread(d []time.Duration) (time.Duration, time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	return slices.Min(d), slices.Max(d)
}

// reportSpread reports the min and max of d beside its median.
func reportSpread(b *testing.B, d []time.Duration, unit string) {
	lo, hi := spread(d)
	b.ReportMetric(ms(lo), unit+"-min")
	b.ReportMetric(ms(hi), unit+"-max")
}

// loopSide is one loop of the benchmark beside runsv, with one daemon.
type loopSide struct {
	name            string
	loop            *loopProc
	paths           ownership.Paths
	record, healthy []time.Duration
	stages          []restartStages
}

func startLoopSide(b *testing.B, f *fakes, name string, loopArgs ...string) *loopSide {
	b.Helper()
	e := newE2EWith(b, f)
	e.writeSpec(object{name: "slack", provider: "slack", generation: 1})
	s := &loopSide{name: name, loop: e.startLoop(loopArgs...), paths: ownership.PathsFor(e.agentDir, "slack")}
	waitRecord(b, s.paths, "ready", healthy)
	return s
}

// killAndWait kills the daemon with SIGKILL and waits for its
// replacement's record, then for that record healthy.
func (s *loopSide) killAndWait(b *testing.B) {
	b.Helper()
	old := fsstore.ReadState(s.paths).State
	standby := standbyPID(s.loop.logs.logLines())
	before := schedOf(standby)
	start := time.Now()
	_ = syscall.Kill(old.PID, syscall.SIGKILL)
	rec := waitRecord(b, s.paths, "replacement published", func(r ownership.Record) bool { return r.State != nil && r.State.OwnerID != old.OwnerID })
	published := time.Since(start)
	var sched schedDelta
	if rec.State.PID == standby {
		sched = schedOf(standby).since(before)
	}
	waitRecord(b, s.paths, "replacement healthy", func(r ownership.Record) bool { return healthy(r) && r.State.OwnerID != old.OwnerID })
	s.record = append(s.record, published)
	s.healthy = append(s.healthy, time.Since(start))
	st := stagesOf(s.loop.logs.logLines(), start, old.PID, *rec.State, published)
	st.sched = sched
	s.stages = append(s.stages, st)
}

// report reports the side's medians (the warm side's under the metric
// names hack/bench has always printed), and logs its stages.
func (s *loopSide) report(b *testing.B, ofRunsv []time.Duration) {
	b.Helper()
	prefix := ""
	if s.name != "warm" {
		prefix = s.name + "-"
	}
	logStages(b, s.name, s.stages, ofRunsv)
	reportMedian(b, s.record, prefix+"record-ms-median")
	reportSpread(b, s.record, prefix+"record-ms")
	reportMedian(b, s.healthy, prefix+"healthy-ms-median")
	if m := median(ofRunsv); m > 0 {
		b.ReportMetric(float64(median(s.record))/float64(m), prefix+"record/runsv")
		b.ReportMetric(float64(median(s.healthy))/float64(m), prefix+"healthy/runsv")
	}
}

// standbyPID is the last warm replacement the loop logged standing by.
func standbyPID(lines []map[string]any) int {
	pid := 0
	for _, m := range lines {
		if p, ok := m["pid"].(float64); ok && m["msg"] == "warm replacement standing by" {
			pid = int(p)
		}
	}
	return pid
}

// schedDelta is CPU time a process's threads ran and waited to run
// (Linux's /proc/PID/task/TID/schedstat, in ns).
type schedDelta struct{ ran, waited time.Duration }

func (d schedDelta) since(before schedDelta) schedDelta {
	return schedDelta{ran: d.ran - before.ran, waited: d.waited - before.waited}
}

// schedOf sums pid's threads' schedstat; zero where there is none.
func schedOf(pid int) schedDelta {
	var d schedDelta
	if pid <= 0 {
		return d
	}
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var ran, waited int64
		if _, err := fmt.Sscan(string(data), &ran, &waited); err == nil {
			d.ran += time.Duration(ran)
			d.waited += time.Duration(waited)
		}
	}
	return d
}
