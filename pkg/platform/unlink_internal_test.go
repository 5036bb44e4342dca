package platform

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// The name is taken by a third file while a successor sits in quarantine:
// neither may be deleted, and the error must say where the successor is.
func TestExactUnlinkLeavesQuarantinedWhenNameTaken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	lease, err := CreateExclusive(path, []byte("old"))
	if err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("successor")); err != nil {
		t.Fatal(err)
	}
	testHookAfterQuarantine = func(path, _ string) {
		if _, err := CreateExclusive(path, []byte("third")); err != nil {
			t.Errorf("taking the name during quarantine: %v", err)
		}
	}
	defer func() { testHookAfterQuarantine = nil }()

	err = ExactUnlink(path, lease)
	var q *QuarantinedError
	if !errors.As(err, &q) || !errors.Is(err, ErrQuarantined) || !errors.Is(err, ErrLeaseMismatch) {
		t.Fatalf("ExactUnlink = %v, want a QuarantinedError over a lease mismatch", err)
	}
	if !errors.Is(q.RestoreErr, os.ErrExist) {
		t.Errorf("RestoreErr = %v, want EEXIST", q.RestoreErr)
	}
	if filepath.Dir(q.Quarantine) != dir {
		t.Fatalf("quarantine %s is not beside %s", q.Quarantine, path)
	}
	if target, kind, ok := atomicfile.ParseLeftover(filepath.Base(q.Quarantine)); !ok || kind != atomicfile.LeftoverQuarantine || target != "owner.lock" {
		t.Errorf("atomicfile.ParseLeftover(%s) = %q, %v, %v", filepath.Base(q.Quarantine), target, kind, ok)
	}
	if b, err := os.ReadFile(q.Quarantine); err != nil || string(b) != "successor" {
		t.Errorf("quarantined successor: %q, %v", b, err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "third" {
		t.Errorf("third file: %q, %v", b, err)
	}
}

// A file that changes or is swapped while CaptureLease reads it is refused.
func TestCaptureLeaseDetectsChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.lock")
	for name, change := range map[string]func(){
		"appended": func() {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("more"); err != nil {
				t.Fatal(err)
			}
		},
		"chmodded": func() {
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"renamed over": func() {
			if err := atomicfile.Write(path, []byte("other")); err != nil {
				t.Fatal(err)
			}
		},
	} {
		if err := os.WriteFile(path, []byte("content"), 0o600); err != nil {
			t.Fatal(err)
		}
		testHookLeaseRead = func(string) { change() }
		_, err := CaptureLease(path)
		testHookLeaseRead = nil
		if !errors.Is(err, ErrFileChanged) {
			t.Errorf("%s while read: CaptureLease = %v, want ErrFileChanged", name, err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
