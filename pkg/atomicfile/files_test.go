package atomicfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gjc.dev/reconciler/internal/filetest"
	"gjc.dev/reconciler/pkg/atomicfile"
	"golang.org/x/sys/unix"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{`{"v":1}`, `{"v":2,"longer":true}`, ``} {
		if err := atomicfile.Write(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got := filetest.Read(t, path); got != content {
			t.Fatalf("content = %q, want %q", got, content)
		}
		filetest.AssertMode(t, path, 0o600)
		filetest.AssertOnlyNames(t, dir, "state.json")
	}
	// A symbolic link at the name is replaced, not written through.
	target := filepath.Join(dir, "target")
	filetest.Write(t, target, "untouched")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := filetest.Read(t, target); got != "untouched" {
		t.Fatalf("Write wrote through a symlink: target = %q", got)
	}
}

func TestWriteCleansUpOnError(t *testing.T) {
	dir := t.TempDir()
	// The rename fails: a non-empty directory holds the name.
	path := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(path, "child"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.Write(path, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Write over a directory = %v, want an error naming %s", err, path)
	}
	filetest.AssertOnlyNames(t, dir, "busy")
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Write in a missing dir = %v, want ErrNotExist", err)
	}
}

func TestReadCapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	filetest.Write(t, path, "0123456789")
	if b, err := atomicfile.ReadCapped(path, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadCapped at the cap = %q, %v", b, err)
	}
	if _, err := atomicfile.ReadCapped(path, 9); !errors.Is(err, atomicfile.ErrTooLarge) {
		t.Fatalf("ReadCapped over the cap = %v, want ErrTooLarge", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := atomicfile.ReadCapped(link, 100); !errors.Is(err, atomicfile.ErrUnsafeFile) {
		t.Fatalf("ReadCapped(symlink) = %v, want ErrUnsafeFile", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := atomicfile.ReadCapped(fifo, 100); !errors.Is(err, atomicfile.ErrUnsafeFile) {
		t.Fatalf("ReadCapped(fifo) = %v, want ErrUnsafeFile", err)
	}
	if _, err := atomicfile.ReadCapped(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadCapped(missing) = %v, want ErrNotExist", err)
	}
	empty := filepath.Join(dir, "empty")
	filetest.Write(t, empty, "")
	if b, err := atomicfile.ReadCapped(empty, 0); err != nil || len(b) != 0 {
		t.Fatalf("ReadCapped(empty, 0) = %q, %v", b, err)
	}
}

func TestCheckPrivateDir(t *testing.T) {
	old := unix.Umask(0o022)
	defer unix.Umask(old)
	root := t.TempDir()
	nested := filepath.Join(root, "agent", "sdk", "daemons", "discord")
	if err := atomicfile.CheckPrivateDir(nested); err != nil {
		t.Fatal(err)
	}
	for p := nested; p != root; p = filepath.Dir(p) {
		filetest.AssertMode(t, p, fs.ModeDir|0o700)
	}
	if err := atomicfile.CheckPrivateDir(nested); err != nil {
		t.Fatalf("second CheckPrivateDir = %v", err)
	}

	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o770); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(nested, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	filetest.Write(t, file, "")
	for _, p := range []string{open, link, file} {
		err := atomicfile.CheckPrivateDir(p)
		if !errors.Is(err, atomicfile.ErrNotPrivate) || !strings.Contains(err.Error(), p) {
			t.Errorf("CheckPrivateDir(%s) = %v, want ErrNotPrivate naming it", filepath.Base(p), err)
		}
	}
	filetest.AssertMode(t, open, fs.ModeDir|0o770) // refused, not repaired

	if os.Geteuid() == 0 {
		foreign := filepath.Join(root, "foreign")
		if err := os.Mkdir(foreign, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.CheckPrivateDir(foreign); !errors.Is(err, atomicfile.ErrNotPrivate) {
			t.Errorf("CheckPrivateDir(dir of another uid) = %v, want ErrNotPrivate", err)
		}
	}
}

func TestCheckPrivateDirUnderStrictUmask(t *testing.T) {
	old := unix.Umask(0o277)
	defer unix.Umask(old)
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := atomicfile.CheckPrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	filetest.AssertMode(t, dir, fs.ModeDir|0o700)
	filetest.AssertMode(t, filepath.Dir(dir), fs.ModeDir|0o700)
	path := filepath.Join(dir, "f")
	if err := atomicfile.Write(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	filetest.AssertMode(t, path, 0o600)
}

func TestParseLeftover(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target string
		kind   atomicfile.LeftoverKind
		ok     bool
	}{
		{".owner.lock.tmp-0123456789abcdef", "owner.lock", atomicfile.LeftoverTemp, true},
		{".owner.lock.quarantine-0123456789abcdef", "owner.lock", atomicfile.LeftoverQuarantine, true},
		{".a.tmp-b.tmp-0123456789abcdef", "a.tmp-b", atomicfile.LeftoverTemp, true},
		{"owner.lock.tmp-0123456789abcdef", "", 0, false},
		{".owner.lock.tmp-0123456789ABCDEF", "", 0, false},
		{".owner.lock.tmp-0123456789abcde", "", 0, false},
		{"..tmp-0123456789abcdef", "", 0, false},
		{".owner.lock.bak-0123456789abcdef", "", 0, false},
		{"owner.lock", "", 0, false},
		{".", "", 0, false},
	} {
		target, kind, ok := atomicfile.ParseLeftover(tc.name)
		if target != tc.target || kind != tc.kind || ok != tc.ok {
			t.Errorf("ParseLeftover(%q) = %q, %v, %v; want %q, %v, %v", tc.name, target, kind, ok, tc.target, tc.kind, tc.ok)
		}
	}
}
