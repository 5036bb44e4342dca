package relay

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/bus"
)

// BenchmarkUpload5MiB: a message with one 5 MiB file, from its outbox
// write to the fake's acceptance and the move to sent/ (ns/op), through
// the whole engine against the in-memory fakePoster (which reads the
// upload as a service does, streamed into its sum). B/op counts every
// allocation of the process meanwhile: far below 5 MiB shows the file is
// streamed, never held whole.
func BenchmarkUpload5MiB(b *testing.B) {
	const size = 5 << 20
	dirs, err := bus.Paths(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		b.Fatal(err)
	}
	f := newFakePoster()
	finished := make(chan string, 1)
	r := New(Options{
		Bus: dirs, Poster: f, Log: logr.Discard(),
		Render:     RenderOptions{Verbose: true, Limit: f.PartLimit()},
		MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Finished: func(id string) { finished <- id },
	})
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Stop(ctx)
	})
	content := make([]byte, size)
	_, _ = rand.Read(content)
	// The session's place first, so each op is the file's message alone.
	if _, err := bus.Write(dirs.Outbox, bus.Message{ID: "000", Session: "s", Text: "warm"}); err != nil {
		b.Fatal(err)
	}
	<-finished
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		id := "f" + strconv.Itoa(i)
		entry := id + "-0-blob.bin"
		if err := os.WriteFile(filepath.Join(dirs.Files, entry), content, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m := bus.Message{ID: id, Session: "s", Attachments: []bus.Attachment{{File: entry, Name: "blob.bin", ContentType: "application/octet-stream"}}}
		if _, err := bus.Write(dirs.Outbox, m); err != nil {
			b.Fatal(err)
		}
		if got := <-finished; got != id {
			b.Fatalf("finished %s, want %s", got, id)
		}
	}
	b.StopTimer()
	if n := len(f.files(f.sessionThread("s"))); n != b.N {
		b.Fatalf("%d files at the fake, want %d", n, b.N)
	}
}
