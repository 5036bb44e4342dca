package platform_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

// A directory is judged by the descriptor it is opened by: a link to it
// is refused, not followed, and so is a subdirectory swapped for one.
func TestOpenPrivateDirRefusesALink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := platform.OpenPrivateDir(link); !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("OpenPrivateDir(link) = %v, want ErrNotPrivate naming the link", err)
	}
	d, err := platform.OpenPrivateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.OpenPrivateDir("link"); !errors.Is(err, platform.ErrNotPrivate) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("OpenPrivateDir(link) relative = %v, want ErrNotPrivate naming the link", err)
	}
	if _, err := d.OpenPrivateDir("../x"); err == nil {
		t.Fatal("a path of more than one name was opened")
	}
}

// Entries are read only when regular, reached without following a link,
// and linked without replacing anything.
func TestDirEntries(t *testing.T) {
	root := t.TempDir()
	d, err := platform.OpenPrivateDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.WriteFile(filepath.Join(root, "a"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	data, e, err := d.ReadFile("a", 100)
	if err != nil || string(data) != "hello" || !e.Regular() || !e.Mine() || e.Size != 5 {
		t.Fatalf("ReadFile(a) = %q, %+v, %v", data, e, err)
	}
	if _, _, err := d.ReadFile("l", 100); !errors.Is(err, platform.ErrUnsafeFile) {
		t.Fatalf("ReadFile(link) = %v, want ErrUnsafeFile", err)
	}
	if _, _, err := d.ReadFile("a", 4); !errors.Is(err, platform.ErrTooLarge) {
		t.Fatalf("ReadFile over the cap = %v, want ErrTooLarge", err)
	}
	tmp, err := d.Stage("b", []byte("staged"))
	if err != nil || !strings.HasPrefix(tmp, ".b") {
		t.Fatalf("Stage = %q, %v", tmp, err)
	}
	if err := d.Link(tmp, d, "a"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Link over a = %v, want ErrExist", err)
	}
	if err := d.Link(tmp, d, "b"); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a")); string(got) != "hello" {
		t.Fatalf("a was replaced: %q", got)
	}
	names, err := d.Names()
	if err != nil || len(names) != 3 {
		t.Fatalf("Names = %v, %v; want a, b, l", names, err)
	}
}
