package systemtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

// vmHWM is the peak resident set of process pid so far (VmHWM), in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM of %d: %q: %v", pid, v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no VmHWM (%v)", pid, s.Err())
	return 0
}

// filesBenchText is how many text messages the daemon posts before the
// files: its peak RSS after them is the baseline the files' is read against.
const filesBenchText = 20

// A 5 MiB file from the outbox to accepted at the fake, through the built
// daemon (non-race) and its real Discord adapter: the time from the
// message's rename into outbox/ (its files/ entry written before, not
// timed) to the fake having stored the upload, one file at a time (the
// message has no text: its only post is the file's). And the daemon's
// memory: its peak RSS (VmHWM) after 20 text messages, then after the
// files; streamed, the file adds far less than its 5 MiB (held whole,
// once as the file and once as the multipart body, it would add 10).
func BenchmarkFilesUpload5MiB(b *testing.B) {
	w := newFilesWorld(b, "bench", "")
	e := w.e
	pid := e.state("discord").PID
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for i := range filesBenchText {
		text := fmt.Sprintf("text %03d", i)
		if _, err := bus.Write(w.d.Outbox, bus.Message{ID: fmt.Sprintf("t%03d", i), Session: "bench", Text: text}); err != nil {
			b.Fatal(err)
		}
		if _, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(threadTexts(s, w.thread, text)) == 1 }); err != nil {
			b.Fatalf("text %d: %v", i, err)
		}
	}
	hwmText := vmHWM(b, pid)

	content := make([]byte, 5<<20)
	_, _ = rand.Read(content)
	want := sumOf(content)
	var samples []time.Duration
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("f%03d", i)
		entry := id + "-0-report.bin"
		b.StopTimer()
		if err := os.WriteFile(filepath.Join(w.d.Files, entry), content, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if _, err := bus.Write(w.d.Outbox, bus.Message{ID: id, Session: "bench", Attachments: []bus.Attachment{{File: entry, Name: "report.bin"}}}); err != nil {
			b.Fatal(err)
		}
		s, err := e.f.discord.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return len(threadFiles(s, w.thread)) == i+1 })
		if err != nil {
			b.Fatalf("file %d: %v", i, err)
		}
		samples = append(samples, time.Since(start))
		if got := threadFiles(s, w.thread)[i]; got.Size != int64(len(content)) || got.Sum != want {
			b.Fatalf("file %d arrived as %v", i, got)
		}
	}
	hwmFile := vmHWM(b, pid)
	if now := e.state("discord").PID; now != pid {
		b.Fatalf("the daemon was replaced (%d, then %d): its memory is not one process's", pid, now)
	}
	b.ReportMetric(float64(median(samples).Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(hwmText)/(1<<20), "MiB-rss-text")
	b.ReportMetric(float64(hwmFile)/(1<<20), "MiB-rss-files")
	b.ReportMetric(0, "ns/op")
}
