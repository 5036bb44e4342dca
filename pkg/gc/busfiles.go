package gc

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// KindOrphanFile is a bus's files/ entry that no message names.
const KindOrphanFile = "orphan-file"

// orphanAge: a files/ entry older than this that no message in outbox/ or
// failed/ names was left by a producer that died between copying the file
// and writing its message (DESIGN 5, "Files"); the relay keeps sent/ as
// long.
const orphanAge = 24 * time.Hour

// busFiles judges name's bus files/: its orphans are stale. A running
// relay prunes them too; gc finds those of a bus no daemon runs for.
func (s *scan) busFiles(name string) {
	d, err := bus.Paths(s.o.AgentDir, name)
	if err != nil {
		return
	}
	names, err := bus.OrphanFiles(d, s.o.Now.Add(-orphanAge))
	if errors.Is(err, fs.ErrNotExist) {
		return // no bus
	}
	if err != nil {
		s.keep(d.Files, KindOrphanFile, KeepUnverifiable+": "+err.Error())
		return
	}
	for _, n := range names {
		why := fmt.Sprintf("a file no message in outbox/ or failed/ names, over %v old", orphanAge)
		s.drop(filepath.Join(d.Files, n), KindOrphanFile, why, func() error { return bus.RemoveFile(d, n) })
	}
}
