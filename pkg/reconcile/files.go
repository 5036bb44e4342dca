package reconcile

// Files is how the reconciler keeps its own files (status.json,
// inventory.json, held.json and the dirs they live in): each written whole
// or not at all, each read with a size cap and refused when it is not a
// regular file. fsstore.Files is the one on disk; keeping it behind an
// interface keeps the platform's primitives out of this package and gives
// tests a place to make a write fail.
type Files interface {
	WriteFileAtomic(path string, data []byte) error
	ReadFileCapped(path string, max int64) ([]byte, error)
	// CheckPrivateDir creates path 0700 if missing and refuses one that
	// is a symlink, another user's, or group or world writable.
	CheckPrivateDir(path string) error
}
