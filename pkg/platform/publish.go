package platform

import (
	"fmt"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// PublishExclusive makes path appear holding data (mode 0600), whole or not
// at all, and only if the name is free: the data is written and fsynced
// under a hidden temp name in the same directory, renamed to path without
// replacing anything, and the directory is fsynced. If path exists the
// error matches ErrExist and nothing is left behind, so of writers racing
// for one name exactly one wins and none overwrites another. Unlike
// CreateExclusive it returns no lease, so it has no size cap: it is for
// files that are handed on (the relay's outbox), not owned.
func PublishExclusive(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("publish %s: %w", path, ErrExist)
	}
	tmp, f, err := atomicfile.CreateTemp(path)
	if err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	if err := atomicfile.WriteSyncClose(f, data); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("publish %s: %w", path, err)
	}
	if err := renameNoReplace(tmp, path); err != nil {
		_ = os.Remove(tmp)
		if os.IsExist(err) {
			return fmt.Errorf("publish %s: %w", path, ErrExist)
		}
		return fmt.Errorf("publish %s: %w", path, err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("publish %s: published, but %w", path, err)
	}
	return nil
}
