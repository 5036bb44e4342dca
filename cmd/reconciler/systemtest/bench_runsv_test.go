package systemtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// Kill -9 of the supervised process, side by side with runit's runsv, in
// interleaved rounds of one run (so both see the same machine): runsv's
// replacement writing its first file (a shell's echo before exec), against
// the loop's replacement publishing its record, and that record healthy.
// hack/bench installs runit when it is missing.
func BenchmarkRestartBesideRunsv(b *testing.B) {
	runsv, err := exec.LookPath("runsv")
	if err != nil {
		b.Skip("runsv (Debian package runit) is not installed: hack/bench installs it")
	}
	sv := startRunsv(b, runsv)
	f := startFakes(b)
	// The loop's two ways to restart, each its own loop and agent dir:
	// handing the config to a warm replacement, and starting it cold.
	sides := []*loopSide{startLoopSide(b, f, "warm"), startLoopSide(b, f, "cold", "--warm-replacements=false")}
	var ofRunsv []time.Duration
	for round := 0; b.Loop(); round++ {
		// Each side restarts at once only a process that ran a while:
		// runsv one that ran 1 s, the loop one healthy for its crash
		// window (10 s); a kill sooner measures their back-off instead.
		// So each round begins that long after the last replacement.
		b.StopTimer()
		time.Sleep(time.Until(sv.startedAt.Add(time.Second)))
		for _, s := range sides {
			time.Sleep(time.Until(time.UnixMilli(fsstore.ReadState(s.paths).State.StartedAt).Add(crashWindowForBench)))
		}
		b.StartTimer()
		ofRunsv = append(ofRunsv, sv.killAndWait(b))
		// Who goes first after runsv alternates, so neither loop always
		// meets the machine runsv's restart left.
		for i := range sides {
			sides[(round+i)%len(sides)].killAndWait(b)
		}
	}
	reportMedian(b, ofRunsv, "runsv-ms-median")
	reportSpread(b, ofRunsv, "runsv-ms")
	for _, s := range sides {
		s.report(b, ofRunsv)
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return slices.Sorted(slices.Values(d))[len(d)/2]
}

// runsvService is a runsv supervising `sleep`, whose run script writes its
// PID first, by rename, so a reader sees it whole.
type runsvService struct {
	dir       string
	startedAt time.Time // when its current process was seen started
}

// crashWindowForBench is the loop's crash window (an exit this soon after
// healthy counts as a crash in a row), with a margin.
const crashWindowForBench = 10*time.Second + 500*time.Millisecond

func startRunsv(b *testing.B, runsv string) *runsvService {
	b.Helper()
	dir := b.TempDir()
	run := "#!/bin/sh\necho $$ > started.tmp && mv started.tmp started\nexec sleep 100000\n"
	if err := os.WriteFile(filepath.Join(dir, "run"), []byte(run), 0o700); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(runsv, dir)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &runsvService{dir: dir}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // runsv takes its service down with it
		_ = cmd.Wait()
		if pid := s.pid(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	s.waitPID(b, 0)
	s.startedAt = time.Now()
	return s
}

func (s *runsvService) pid() int {
	data, err := os.ReadFile(filepath.Join(s.dir, "started"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// waitPID waits for a started file naming another PID than old.
func (s *runsvService) waitPID(b *testing.B, old int) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eDeadline)
	defer cancel()
	var pid int
	waitDirEvents(b, ctx, s.dir, func() bool { pid = s.pid(); return pid > 0 && pid != old }, "runsv's replacement")
	return pid
}

func (s *runsvService) killAndWait(b *testing.B) time.Duration {
	b.Helper()
	old := s.pid()
	start := time.Now()
	_ = syscall.Kill(old, syscall.SIGKILL)
	s.waitPID(b, old)
	d := time.Since(start)
	s.startedAt = time.Now()
	return d
}
