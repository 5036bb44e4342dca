package platform

import "fmt"

// DirID identifies a directory for as long as it exists, whatever it is
// named or moved to: its device and inode, and its birth time where the
// filesystem keeps one, so that an inode number reused by a new directory
// after the old one was removed names another directory.
func DirID(path string) (string, error) {
	id, err := dirID(path)
	if err != nil {
		return "", fmt.Errorf("identity of %s: %w", path, err)
	}
	return id, nil
}
