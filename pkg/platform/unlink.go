package platform

import (
	"fmt"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// testHookAfterQuarantine runs after ExactUnlink has moved the file aside.
var testHookAfterQuarantine func(path, quarantine string)

// ExactUnlink deletes the file at path only if it is the version lease
// describes; a successor that took the name since the lease was captured is
// never deleted.
//
// A plain unlink(2) cannot be made conditional, so the file is first renamed
// to a fresh quarantine name in the same directory (see atomicfile.QuarantineInfix).
// That name is ours alone, so what is checked there is what gets deleted:
// the quarantined file is captured again and compared field by field with
// the lease, and only an exact match is unlinked. Anything else is renamed
// back without replacing (RENAME_NOREPLACE): the result is then a
// *LeaseMismatchError saying what differed. If the name was taken by yet
// another file meanwhile, the file stays in quarantine and the result is a
// *QuarantinedError naming it. A missing file gives an error matching
// fs.ErrNotExist.
//
// While the file is in quarantine, path is briefly absent: readers must
// treat absence as "no record", as they do for any deleted file.
func ExactUnlink(path string, lease Lease) error {
	quarantine := atomicfile.TransientName(path, atomicfile.QuarantineInfix)
	if err := renameNoReplace(path, quarantine); err != nil {
		return fmt.Errorf("exact unlink %s: %w", path, err)
	}
	if testHookAfterQuarantine != nil {
		testHookAfterQuarantine(path, quarantine)
	}
	mismatch := verifyLeaseAt(path, quarantine, lease)
	if mismatch == nil {
		if err := os.Remove(quarantine); err != nil {
			return &QuarantinedError{Path: path, Quarantine: quarantine, Err: err}
		}
		if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
			return fmt.Errorf("exact unlink %s: unlinked, but %w", path, err)
		}
		return nil
	}
	if err := renameNoReplace(quarantine, path); err != nil {
		return &QuarantinedError{Path: path, Quarantine: quarantine, Err: mismatch, RestoreErr: err}
	}
	return mismatch
}
