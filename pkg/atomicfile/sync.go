package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// deferredDirs are the directories whose fsyncs wait (see DeferDirSyncs),
// with how many callers defer each.
var deferredDirs = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// syncObserver, when set, is told of every fsync this package does (see
// ObserveSyncs).
var syncObserver atomic.Pointer[func(kind, path string)]

// ObserveSyncs tells fn of every fsync done through this package (by it,
// or by a caller with SyncOpenDir or SyncFile) from now until
// stop: "file" with the file's path, or "dir" with the directory's. It is
// for tests of what a caller makes durable, and when; fn must be safe to
// call from any goroutine.
func ObserveSyncs(fn func(kind, path string)) (stop func()) {
	syncObserver.Store(&fn)
	return func() { syncObserver.CompareAndSwap(&fn, nil) }
}

func observeSync(kind, path string) {
	if fn := syncObserver.Load(); fn != nil {
		(*fn)(kind, path)
	}
}

// DeferDirSyncs makes every directory fsync of this process in dir wait
// until resume is called: the renames of Write, and the links and removals
// of pkg/platform's CreateExclusive and ExactUnlink, stay where they are (in
// the page cache, seen by every process at once) but are not forced to
// disk one by one. File contents are still fsynced before their names
// appear, so no name ever shows a partial file, after a crash either.
//
// It is for a caller whose next step after resume is a Write in
// the same dir: that one fsync of the dir makes every earlier change in it
// durable together. What is made meanwhile is then durable only from that
// point on, so a caller defers only changes none of which must outlive a
// crash before that write does. resume may be called more than once.
func DeferDirSyncs(dir string) (resume func()) {
	dir = filepath.Clean(dir)
	deferredDirs.Lock()
	deferredDirs.n[dir]++
	deferredDirs.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			deferredDirs.Lock()
			defer deferredDirs.Unlock()
			if deferredDirs.n[dir]--; deferredDirs.n[dir] <= 0 {
				delete(deferredDirs.n, dir)
			}
		})
	}
}

func dirSyncDeferred(dir string) bool {
	deferredDirs.Lock()
	defer deferredDirs.Unlock()
	return deferredDirs.n[filepath.Clean(dir)] > 0
}

// SyncFile fsyncs f, the file named path.
func SyncFile(f *os.File) error {
	observeSync("file", f.Name())
	return f.Sync()
}

// SyncDir makes the creation, rename or removal of names in dir durable,
// unless a caller defers that (DeferDirSyncs).
func SyncDir(dir string) error {
	if dirSyncDeferred(dir) {
		return nil
	}
	observeSync("dir", dir)
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// SyncOpenDir is SyncDir of d, the directory at path, already open.
func SyncOpenDir(d *os.File, path string) error {
	if dirSyncDeferred(path) {
		return nil
	}
	observeSync("dir", path)
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}
