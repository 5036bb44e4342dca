package platform_test

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"gjc.dev/reconciler/internal/filetest"
	"gjc.dev/reconciler/pkg/platform"
)

func TestPublishExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	big := make([]byte, platform.MaxLeaseSize*4) // no lease, so no lease cap
	if err := platform.PublishExclusive(path, big); err != nil {
		t.Fatal(err)
	}
	filetest.AssertMode(t, path, 0o600)
	if err := platform.PublishExclusive(path, []byte("other")); !errors.Is(err, platform.ErrExist) {
		t.Fatalf("want ErrExist on a taken name, got %v", err)
	}
	if got := filetest.Read(t, path); len(got) != len(big) {
		t.Fatalf("the published file changed: %d bytes", len(got))
	}
	filetest.AssertOnlyNames(t, dir, "m.json")
}

func TestPublishExclusiveRaceHasOneWinner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = platform.PublishExclusive(path, []byte{byte('a' + i)})
		}()
	}
	wg.Wait()
	wins := 0
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, platform.ErrExist):
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d writers published, want exactly 1", wins)
	}
	filetest.AssertOnlyNames(t, dir, "m.json")
}
