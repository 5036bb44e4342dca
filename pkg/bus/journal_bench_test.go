package bus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkJournalAppend appends one record per call from many goroutines
// at once, as the relay's sessions do, and reports how many fsyncs each
// record cost: group commit is what keeps it well under one.
func BenchmarkJournalAppend(b *testing.B) {
	j, err := OpenJournal(filepath.Join(b.TempDir(), "journal"))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	var n atomic.Int64
	b.SetParallelism(8) // 8 appenders per CPU: sessions waiting on their own posts
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if err := j.Append(context.Background(), attempt(fmt.Sprint("m", i), "0")); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	st := j.Stats()
	b.ReportMetric(float64(st.Syncs)/float64(st.Records), "fsyncs/record")
}

// BenchmarkReplay100k replays a journal of 100,000 records (50,000 parts,
// each attempted and done): what a relay reads at start-up before its
// first post.
func BenchmarkReplay100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "journal")
	recs := make([]Record, 0, 100_000)
	for i := range 50_000 {
		a := attempt(fmt.Sprintf("01JD%022d", i), "0")
		a.Text = strings.Repeat("a rendered part of a message ", 4)
		recs = append(recs, a, done(a.ID, "0"))
	}
	data, err := encodeRecords(recs)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	// CPU time as well as wall time: on a shared machine the wall time
	// says more about the neighbours than about the replay.
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := ReplayJournal(path, func(Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != len(recs) {
			b.Fatalf("replayed %d records, want %d", n, len(recs))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime is the user and system time this process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
