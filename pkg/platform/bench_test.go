package platform_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/platform"
)

func BenchmarkIncarnation(b *testing.B) {
	pid := startHelper(b, "", "block").Cmd.Process.Pid
	for b.Loop() {
		if _, err := platform.Incarnation(pid); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAlive(b *testing.B) {
	pid := startHelper(b, "", "block").Cmd.Process.Pid
	for b.Loop() {
		if alive, err := platform.Alive(pid); err != nil || !alive {
			b.Fatal(alive, err)
		}
	}
}

// BenchmarkExitDetect measures SIGKILL to Wait returning, on a process that
// is not our child. Each iteration also spawns that process, so ns/op is the
// whole cycle; the detection latency is reported as detect-p50-ns (median)
// and detect-mean-ns.
func BenchmarkExitDetect(b *testing.B) {
	s := newSpawner(b)
	ctx := context.Background()
	var latencies []time.Duration
	for b.Loop() {
		pid := s.spawn(b)
		p := openPID(b, pid)
		killed := time.Now()
		if err := p.Signal(syscall.SIGKILL); err != nil {
			b.Fatal(err)
		}
		if err := p.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, time.Since(killed))
		p.Close()
		s.reap(b, pid)
	}
	slices.Sort(latencies)
	var sum time.Duration
	for _, l := range latencies {
		sum += l
	}
	b.ReportMetric(float64(latencies[len(latencies)/2].Nanoseconds()), "detect-p50-ns")
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(latencies)), "detect-mean-ns")
}

func BenchmarkCaptureLeaseExactUnlink(b *testing.B) {
	path := filepath.Join(b.TempDir(), "owner.lock")
	data := []byte(`{"pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}` + "\n")
	for b.Loop() {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		lease, err := platform.CaptureLease(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := platform.ExactUnlink(path, lease); err != nil {
			b.Fatal(err)
		}
	}
}
