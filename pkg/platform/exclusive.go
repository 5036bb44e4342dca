package platform

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// CreateExclusive creates path holding data (mode 0600) only if the name is
// free, and returns the Lease of the file it created. The data is written
// and fsynced under a temp name first and then link(2)ed to path, so the
// name appears whole or not at all: no reader ever sees a partial file. If
// path exists the error matches errors.Is(err, ErrExist) (fs.ErrExist) and
// nothing is left behind.
//
// The lease is taken from the created file itself, not from the name, so it
// describes the inode this call made even if the name changed hands since.
func CreateExclusive(path string, data []byte) (Lease, error) {
	if len(data) > MaxLeaseSize {
		// Its lease could never be captured again, so it could never be
		// proved ours.
		return Lease{}, fmt.Errorf("create %s: %w: %d bytes, over %d", path, ErrTooLarge, len(data), MaxLeaseSize)
	}
	// A taken name is the common answer (a successor finding its
	// predecessor's lock): say so before paying for a temp file's fsync.
	// A name taken after this look still fails the link below.
	if _, err := os.Lstat(path); err == nil {
		return Lease{}, fmt.Errorf("create %s: %w", path, ErrExist)
	}
	tmp, f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return Lease{}, fmt.Errorf("create %s: %w", path, err)
	}
	defer f.Close()
	// Whether or not the link succeeds, the temp name must go: after a
	// link it is a second name that would let the file change under path.
	removed := false
	defer func() {
		if !removed {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return Lease{}, fmt.Errorf("create %s: %w", path, err)
	}
	if err := atomicfile.SyncFile(f); err != nil {
		return Lease{}, fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		return Lease{}, fmt.Errorf("create %s: %w", path, err)
	}
	removed = true
	if err := os.Remove(tmp); err != nil {
		return Lease{}, fmt.Errorf("create %s: created, but its temp name stays: %w", path, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return Lease{}, fmt.Errorf("create %s: created, but %w", path, err)
	}
	st, err := atomicfile.Fstat(int(f.Fd()), path)
	if err != nil {
		return Lease{}, fmt.Errorf("create %s: created, but %w", path, err)
	}
	if st.Nlink != 1 {
		return Lease{}, fmt.Errorf("create %s: created, but %w: it has %d links", path, ErrUnsafeFile, st.Nlink)
	}
	return leaseOf(st, bytes.Clone(data)), nil
}
