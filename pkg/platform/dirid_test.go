package platform_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

// A dir keeps its identity when moved or named through a symlink; another
// dir has another.
func TestDirID(t *testing.T) {
	root := t.TempDir()
	a, b, other := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "other")
	for _, d := range []string{a, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	id := mustDirID(t, a)
	if err := os.Symlink(a, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if got := mustDirID(t, filepath.Join(root, "link")); got != id {
		t.Errorf("through a symlink: %s, want %s", got, id)
	}
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	if got := mustDirID(t, b); got != id {
		t.Errorf("moved: %s, want %s", got, id)
	}
	if got := mustDirID(t, other); got == id {
		t.Errorf("another dir has the same identity %s", id)
	}
	if _, err := platform.DirID(filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("DirID of a missing dir = %v, want fs.ErrNotExist", err)
	}
}

func mustDirID(t *testing.T, dir string) string {
	t.Helper()
	id, err := platform.DirID(dir)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
