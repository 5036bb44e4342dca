package platform

import (
	"errors"
	"os"
)

// renameByLink moves from to to, failing if to exists, with link(2) and
// unlink(2): the fallback where the file system has no no-replace rename.
// It cannot move directories, which ExactUnlink never needs to restore as
// leases are of regular files.
func renameByLink(from, to string) error {
	if err := os.Link(from, to); err != nil {
		return err
	}
	if err := os.Remove(from); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: errors.Unwrap(err)}
	}
	return nil
}
