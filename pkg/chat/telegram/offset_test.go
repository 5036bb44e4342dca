package telegram

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOffsetStore(t *testing.T) {
	dir := t.TempDir()
	s := newOffsetStore(dir)
	if n, err := s.load(); err != nil || n != 0 {
		t.Fatalf("fresh load = %d, %v", n, err)
	}
	if err := s.save(700000005); err != nil {
		t.Fatal(err)
	}
	if n, err := newOffsetStore(dir).load(); err != nil || n != 700000005 {
		t.Fatalf("load after save = %d, %v", n, err)
	}
	if err := os.WriteFile(filepath.Join(dir, OffsetFile), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load(); err == nil {
		t.Fatal("a junk offset file loads")
	}
}
