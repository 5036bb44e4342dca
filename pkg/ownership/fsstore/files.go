package fsstore

import "gjc.dev/reconciler/pkg/platform"

// Files is the reconciler's own files on disk (reconcile.Files), by the
// platform's atomic writes, capped reads and private-dir checks.
type Files struct{}

func (Files) WriteFileAtomic(path string, data []byte) error {
	return platform.WriteFileAtomic(path, data)
}
func (Files) ReadFileCapped(path string, max int64) ([]byte, error) {
	return platform.ReadFileCapped(path, max)
}
func (Files) CheckPrivateDir(path string) error { return platform.CheckPrivateDir(path) }
