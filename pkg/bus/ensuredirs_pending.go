package bus

import (
	"fmt"

	"gjc.dev/reconciler/pkg/platform"
)

// EnsureDirs creates the bus directories of d (Dir, then Outbox, Sent,
// Failed, Inbox), each 0700 with any missing parents, and refuses one
// that is a symbolic link, not a directory, another uid's, or writable by
// group or others (platform.ErrNotPrivate).
//
// Pending: the journal branch brings the real one with this signature;
// this file is dropped when it lands.
func EnsureDirs(d Dirs) error {
	for _, dir := range []struct{ name, path string }{
		{"bus", d.Dir}, {"outbox", d.Outbox}, {"sent", d.Sent}, {"failed", d.Failed}, {"inbox", d.Inbox},
	} {
		if dir.path == "" {
			return fmt.Errorf("bus dirs: no %s directory", dir.name)
		}
		if err := platform.CheckPrivateDir(dir.path); err != nil {
			return fmt.Errorf("bus %s directory: %w", dir.name, err)
		}
	}
	return nil
}
