package fsstore

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/ownership"
)

// Acquire defers the directory fsyncs of its lock steps to the publish, so
// the publish must end with one: the record's name (and with it the lock's)
// durable before Acquire returns.
func TestAcquireEndsWithTheDirDurable(t *testing.T) {
	p := newPaths(t)
	var mu sync.Mutex
	var syncs []string // kind and base name, in order, within p.Dir
	stop := atomicfile.ObserveSyncs(func(kind, path string) {
		if path == p.Dir || filepath.Dir(path) == p.Dir {
			mu.Lock()
			defer mu.Unlock()
			syncs = append(syncs, kind+" "+filepath.Base(path))
		}
	})
	o, err := Acquire(p, request)
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Release(nil) })
	mu.Lock()
	defer mu.Unlock()
	record := -1
	for i, s := range syncs {
		if strings.HasPrefix(s, "file ."+ownership.StateFile) {
			record = i
		}
	}
	if record < 0 {
		t.Fatalf("the record's content was never fsynced: %q", syncs)
	}
	if !slicesContainsAfter(syncs, record, "dir "+filepath.Base(p.Dir)) {
		t.Fatalf("no fsync of the daemon dir after the record's: %q", syncs)
	}
}

func slicesContainsAfter(s []string, i int, want string) bool {
	for _, v := range s[i+1:] {
		if v == want {
			return true
		}
	}
	return false
}
