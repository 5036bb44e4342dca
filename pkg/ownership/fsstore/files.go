package fsstore

import (
	"gjc.dev/reconciler/pkg/atomicfile"
)

// Files is the reconciler's own files on disk (reconcile.Files), by the
// platform's atomic writes, capped reads and private-dir checks.
type Files struct{}

func (Files) WriteFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, data)
}
func (Files) ReadFileCapped(path string, max int64) ([]byte, error) {
	return atomicfile.ReadCapped(path, max)
}
func (Files) CheckPrivateDir(path string) error { return atomicfile.CheckPrivateDir(path) }
