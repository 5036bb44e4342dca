package platform

import "fmt"

// DirID identifies a directory for as long as it exists, whatever it is
// named or moved to: its device and inode. Only stat(2), which every
// process can call, so two processes always agree on it (a birth time would
// need statx, which a seccomp filter may refuse one of them). Once the dir
// is removed its inode number may name a new one; a guard keyed by it then
// errs towards "held", never towards "free".
func DirID(path string) (string, error) {
	id, err := dirID(path)
	if err != nil {
		return "", fmt.Errorf("identity of %s: %w", path, err)
	}
	return id, nil
}
