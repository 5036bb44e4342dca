package platform

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// syncsIn records the fsyncs done in dir (of dir itself, or of files in it)
// until the test ends.
func syncsIn(t *testing.T, dir string) *[]string {
	t.Helper()
	var got []string
	t.Cleanup(atomicfile.ObserveSyncs(func(kind, path string) {
		if path == dir || filepath.Dir(path) == dir {
			got = append(got, kind)
		}
	}))
	return &got
}

// While a dir's syncs are deferred (atomicfile.DeferDirSyncs), the links
// of CreateExclusive and the removals of ExactUnlink sync no dir, only the
// file's contents; after resume, they sync the dir again.
func TestDeferDirSyncs(t *testing.T) {
	dir := t.TempDir()
	got := syncsIn(t, dir)
	resume := atomicfile.DeferDirSyncs(dir + "/") // any spelling of the dir
	lease, err := CreateExclusive(filepath.Join(dir, "owner.lock"), []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ExactUnlink(filepath.Join(dir, "owner.lock"), lease); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*got, []string{"file"}) {
		t.Errorf("deferred: syncs %q, want only the file's", *got)
	}
	resume()
	*got = nil
	if lease, err = CreateExclusive(filepath.Join(dir, "owner.lock"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := ExactUnlink(filepath.Join(dir, "owner.lock"), lease); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(*got, []string{"file", "dir", "dir"}) {
		t.Errorf("resumed: syncs %q, want the file's and the dir's twice", *got)
	}
}

// A name that is taken costs no temp file and no fsync.
func TestCreateExclusiveTakenNameSyncsNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	if err := os.WriteFile(path, []byte("taken"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := syncsIn(t, dir)
	if _, err := CreateExclusive(path, []byte("mine")); !errors.Is(err, ErrExist) {
		t.Fatalf("CreateExclusive over a taken name = %v, want ErrExist", err)
	}
	if len(*got) > 0 {
		t.Errorf("syncs %q for a taken name", *got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
