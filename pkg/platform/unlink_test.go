package platform_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gjc.dev/reconciler/internal/filetest"
	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/platform"
)

func TestExactUnlinkDeletesTheLeasedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := platform.CreateExclusive(path, []byte("mine"))
	if err != nil {
		t.Fatal(err)
	}
	if err := platform.ExactUnlink(path, lease); err != nil {
		t.Fatal(err)
	}
	filetest.AssertOnlyNames(t, dir)
	if err := platform.ExactUnlink(path, lease); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ExactUnlink of a missing file = %v, want ErrNotExist", err)
	}
}

func TestExactUnlinkSparesASuccessor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := platform.CreateExclusive(path, []byte("old owner"))
	if err != nil {
		t.Fatal(err)
	}
	// A successor replaced the file, with content of the same length.
	if err := atomicfile.Write(path, []byte("new owner")); err != nil {
		t.Fatal(err)
	}
	err = platform.ExactUnlink(path, lease)
	var mismatch *platform.LeaseMismatchError
	if !errors.As(err, &mismatch) || !errors.Is(err, platform.ErrLeaseMismatch) {
		t.Fatalf("ExactUnlink of a successor = %v, want a LeaseMismatchError", err)
	}
	if !slices.Contains(mismatch.Fields(), "content") || mismatch.Path != path {
		t.Errorf("mismatch fields %v, path %s; want content among them", mismatch.Fields(), mismatch.Path)
	}
	if got := filetest.Read(t, path); got != "new owner" {
		t.Fatalf("successor = %q after ExactUnlink", got)
	}
	filetest.AssertOnlyNames(t, dir, "owner.lock")
}

func TestExactUnlinkComparesMtime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := platform.CreateExclusive(path, []byte("same"))
	if err != nil {
		t.Fatal(err)
	}
	// Same inode and content, touched since: not the observed version.
	later := time.Unix(0, lease.MtimeNs).Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	err = platform.ExactUnlink(path, lease)
	var mismatch *platform.LeaseMismatchError
	if !errors.As(err, &mismatch) || !slices.Equal(mismatch.Fields(), []string{"mtime"}) {
		t.Fatalf("ExactUnlink of a touched file = %v (fields %v), want an mtime mismatch", err, fieldsOf(mismatch))
	}
	filetest.AssertOnlyNames(t, dir, "owner.lock")
}

func TestExactUnlinkSparesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := platform.CreateExclusive(path, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", path); err != nil {
		t.Fatal(err)
	}
	err = platform.ExactUnlink(path, lease)
	if !errors.Is(err, platform.ErrLeaseMismatch) || !errors.Is(err, platform.ErrUnsafeFile) {
		t.Fatalf("ExactUnlink of a symlink = %v, want ErrLeaseMismatch wrapping ErrUnsafeFile", err)
	}
	if target, err := os.Readlink(path); err != nil || target != "/etc/passwd" {
		t.Fatalf("symlink after ExactUnlink: %q, %v", target, err)
	}
	filetest.AssertOnlyNames(t, dir, "owner.lock")
}

func fieldsOf(e *platform.LeaseMismatchError) []string {
	if e == nil {
		return nil
	}
	return e.Fields()
}

func TestVerifyLease(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := platform.CreateExclusive(path, []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := platform.VerifyLease(path, lease); err != nil {
		t.Fatalf("VerifyLease right after CreateExclusive = %v", err)
	}
	if err := atomicfile.Write(path, []byte("v2, longer")); err != nil {
		t.Fatal(err)
	}
	err = platform.VerifyLease(path, lease)
	var mismatch *platform.LeaseMismatchError
	if !errors.As(err, &mismatch) || !slices.Contains(mismatch.Fields(), "size") {
		t.Fatalf("VerifyLease of a replaced file = %v, want a size mismatch", err)
	}
	for _, want := range []string{path, "size 2 != 10", "content sha256:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	mustRemove(t, path)
	if err := platform.VerifyLease(path, lease); !errors.Is(err, platform.ErrLeaseMismatch) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("VerifyLease of a missing file = %v, want ErrLeaseMismatch and ErrNotExist", err)
	}
}
