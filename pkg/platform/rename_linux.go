package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, failing with EEXIST if to exists.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		// Some file systems (older NFS, FUSE) do not support the flag.
		return renameByLink(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
