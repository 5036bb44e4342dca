package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// syncsIn records the fsyncs done in dir (of dir itself, or of files in it)
// until the test ends.
func syncsIn(t *testing.T, dir string) *[]string {
	t.Helper()
	var got []string
	t.Cleanup(ObserveSyncs(func(kind, path string) {
		if path == dir || filepath.Dir(path) == dir {
			got = append(got, kind)
		}
	}))
	return &got
}

// While a dir's syncs are deferred, its names are made and removed with no
// fsync of the dir (file contents are still fsynced); other dirs are not
// affected; after resume, the next write syncs the dir again.
func TestDeferDirSyncs(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	got := syncsIn(t, dir)
	resume := DeferDirSyncs(dir + "/") // any spelling of the dir
	if err := Write(filepath.Join(dir, "state.json"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := SyncOpenDir(d, dir); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*got, []string{"file"}) {
		t.Errorf("deferred: syncs %q, want only the file's", *got)
	}
	if dirSyncDeferred(other) {
		t.Error("another dir's syncs are deferred too")
	}

	again := DeferDirSyncs(dir)
	resume()
	resume() // twice: must not end the other caller's deferral
	if !dirSyncDeferred(dir) {
		t.Fatal("resuming one of two deferrals ended both")
	}
	again()
	*got = nil
	if err := Write(filepath.Join(dir, "state.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*got, []string{"file", "dir"}) {
		t.Errorf("resumed: syncs %q, want the file's and the dir's", *got)
	}
}
