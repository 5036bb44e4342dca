package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchDir writes 100 objects in 10 files, old enough that stamps are trusted.
func benchDir(b *testing.B) string {
	b.Helper()
	b.Setenv("TEST_DISCORD_TOKEN", "t")
	dir := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for f := range 10 {
		var docs []string
		for i := range 10 {
			docs = append(docs, discordDoc(fmt.Sprintf("bot-%d-%d", f, i), ""))
		}
		p := filepath.Join(dir, fmt.Sprintf("f%02d.yaml", f))
		if err := os.WriteFile(p, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func BenchmarkLoadDir(b *testing.B) {
	dir := benchDir(b)
	b.ResetTimer()
	for b.Loop() {
		if res := NewLoader(dir).Load(); len(res.Daemons) != 100 {
			b.Fatalf("loaded %d daemons: %s", len(res.Daemons), issueStrings(res.Errors))
		}
	}
}

func BenchmarkLoadDirUnchanged(b *testing.B) {
	dir := benchDir(b)
	l := NewLoader(dir)
	if res := l.Load(); len(res.Daemons) != 100 {
		b.Fatalf("loaded %d daemons", len(res.Daemons))
	}
	b.ResetTimer()
	for b.Loop() {
		l.Load()
	}
}
