package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, failing with EEXIST if to exists.
func renameNoReplace(from, to string) error {
	err := unix.RenamexNp(from, to, unix.RENAME_EXCL)
	if err == unix.ENOTSUP || err == unix.EINVAL {
		// File systems without RENAME_EXCL (some network mounts).
		return renameByLink(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
