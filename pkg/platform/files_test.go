package platform_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/internal/filetest"
	"gjc.dev/reconciler/pkg/platform"
	"golang.org/x/sys/unix"
)

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	data := []byte(`{"pid":1,"incarnation":"linux:5","createdAt":1}` + "\n")
	lease, err := platform.CreateExclusive(path, data)
	if err != nil {
		t.Fatal(err)
	}
	filetest.AssertMode(t, path, 0o600)
	filetest.AssertOnlyNames(t, dir, "owner.lock")
	captured, err := platform.CaptureLease(path)
	if err != nil {
		t.Fatal(err)
	}
	if !lease.Equal(captured) || lease.Nlink != 1 || !bytes.Equal(lease.Content, data) {
		t.Fatalf("lease from CreateExclusive %+v differs from CaptureLease %+v", lease, captured)
	}

	_, err = platform.CreateExclusive(path, []byte("other"))
	if !errors.Is(err, platform.ErrExist) || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateExclusive on a taken name = %v, want ErrExist", err)
	}
	if got := filetest.Read(t, path); got != string(data) {
		t.Fatalf("the loser changed the file: %q", got)
	}
	filetest.AssertOnlyNames(t, dir, "owner.lock")

	if _, err := platform.CreateExclusive(filepath.Join(dir, "big"), make([]byte, platform.MaxLeaseSize+1)); !errors.Is(err, platform.ErrTooLarge) {
		t.Fatalf("CreateExclusive over the lease cap = %v, want ErrTooLarge", err)
	}
	// A dangling symbolic link also takes the name.
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if _, err := platform.CreateExclusive(filepath.Join(dir, "dangling"), data); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateExclusive over a dangling symlink = %v, want ErrExist", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("CreateExclusive followed a dangling symlink")
	}
}

func TestCaptureLeaseRefusesUnsafeFiles(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	filetest.Write(t, regular, "x")

	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard")
	if err := os.Link(regular, hard); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	filetest.Write(t, big, strings.Repeat("x", platform.MaxLeaseSize+1))
	for _, tc := range []struct {
		path string
		want error
	}{
		{link, platform.ErrUnsafeFile},
		{hard, platform.ErrUnsafeFile}, // two links
		{fifo, platform.ErrUnsafeFile}, // must not block either
		{dir, platform.ErrUnsafeFile},  // a directory
		{big, platform.ErrTooLarge},    // over 64 KiB
		{filepath.Join(dir, "missing"), fs.ErrNotExist},
	} {
		if _, err := platform.CaptureLease(tc.path); !errors.Is(err, tc.want) {
			t.Errorf("CaptureLease(%s) = %v, want %v", filepath.Base(tc.path), err, tc.want)
		} else if !strings.Contains(err.Error(), tc.path) {
			t.Errorf("CaptureLease(%s) error %q does not name the path", filepath.Base(tc.path), err)
		}
	}
	exact := filepath.Join(dir, "exact")
	filetest.Write(t, exact, strings.Repeat("y", platform.MaxLeaseSize))
	if l, err := platform.CaptureLease(exact); err != nil || l.Size != platform.MaxLeaseSize {
		t.Errorf("CaptureLease of exactly %d bytes = %v, %v", platform.MaxLeaseSize, l.Size, err)
	}
}

func mustRemove(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
