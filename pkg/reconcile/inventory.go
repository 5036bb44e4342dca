package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// inventory is the set of names this reconciler spawned: a name that leaves
// the spec is stopped only if it is here, so a daemon someone else runs is
// never pruned.
type inventory struct {
	mu    sync.Mutex
	path  string
	log   logr.Logger
	names []string
	// bad are the entries that are not valid names, as read: never acted
	// on, and written back as they were, so the problem stays visible until
	// a person fixes the file.
	bad []string
	// removed are the names this reconciler pruned, proven gone, whose
	// daemon dirs may remain (their bus stays for gc): while nothing runs
	// there they are left out of the status, not reported Unmanaged, which
	// would say this reconciler never started them.
	removed []string
	// seen is the file as last read: other processes (--once, restart) add
	// names too, so a changed file is read again before it is used.
	seen os.FileInfo
}

// maxInventoryFile caps the read of inventory.json: a name list, far smaller.
const maxInventoryFile = 64 << 10

type inventoryFile struct {
	Version int      `json:"version"`
	Names   []string `json:"names"`
	Removed []string `json:"removed,omitempty"`
}

func loadInventory(path string, log logr.Logger) (*inventory, error) {
	inv := &inventory{path: path, log: log}
	if err := inv.read(); err != nil {
		return nil, err
	}
	return inv, nil
}

// read loads the file; the caller holds mu (or owns inv alone).
func (i *inventory) read() error {
	fi, err := os.Stat(i.path)
	if errors.Is(err, os.ErrNotExist) {
		i.names, i.bad, i.removed, i.seen = nil, nil, nil, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading inventory %s: %w", i.path, err)
	}
	data, err := atomicfile.ReadCapped(i.path, maxInventoryFile)
	if err != nil {
		return fmt.Errorf("reading inventory %s: %w", i.path, err)
	}
	var f inventoryFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		return fmt.Errorf("inventory %s is not a version 1 inventory; move it aside to start over", i.path)
	}
	var names, bad []string
	for _, n := range f.Names {
		if p := badName(i.path, n); p != nil {
			i.log.Error(errors.New(p.Message), "inventory entry ignored: it is never pruned, signalled or used as a path", "file", i.path, "entry", n)
			bad = append(bad, n)
			continue
		}
		names = append(names, n)
	}
	var removed []string
	for _, n := range f.Removed {
		if p := badName(i.path, n); p != nil {
			// Only ever left out of the status: dropped at the next write.
			i.log.Error(errors.New(p.Message), "removed inventory entry ignored", "file", i.path, "entry", n)
			continue
		}
		removed = append(removed, n)
	}
	slices.Sort(names)
	slices.Sort(removed)
	i.names, i.bad, i.removed, i.seen = slices.Compact(names), bad, slices.Compact(removed), fi
	return nil
}

// problems are the inventory's entries that are not valid names.
func (i *inventory) problems() []Problem {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []Problem
	for _, n := range i.bad {
		out = append(out, *badName(i.path, n))
	}
	return out
}

// refresh re-reads the file if another process changed it since.
func (i *inventory) refresh() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refreshLocked()
}

func (i *inventory) refreshLocked() {
	fi, err := os.Stat(i.path)
	if err != nil && i.seen == nil {
		return
	}
	if err == nil && i.seen != nil && os.SameFile(fi, i.seen) && fi.ModTime().Equal(i.seen.ModTime()) && fi.Size() == i.seen.Size() {
		return
	}
	if err := i.read(); err != nil {
		// Keep what we knew: an unreadable inventory must not un-manage names.
		return
	}
}

func (i *inventory) has(name string) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	_, ok := slices.BinarySearch(i.names, name)
	return ok
}

func (i *inventory) list() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.names)
}

// wasRemoved reports whether this reconciler pruned name, proven gone.
func (i *inventory) wasRemoved(name string) bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	_, ok := slices.BinarySearch(i.removed, name)
	return ok
}

// add records a name before its daemon is spawned, so a crash between the
// spawn and the write cannot leave a managed daemon unlisted. A name
// pruned before is managed again.
func (i *inventory) add(name string) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refreshLocked()
	at, ok := slices.BinarySearch(i.names, name)
	if ok {
		return nil
	}
	next := slices.Insert(slices.Clone(i.names), at, name)
	removed := slices.DeleteFunc(slices.Clone(i.removed), func(n string) bool { return n == name })
	if err := i.write(next, removed); err != nil {
		return err
	}
	i.names, i.removed = next, removed
	return nil
}

// remove forgets a pruned name, proven gone, and notes it removed.
func (i *inventory) remove(name string) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refreshLocked()
	at, ok := slices.BinarySearch(i.names, name)
	if !ok {
		return nil
	}
	next := slices.Delete(slices.Clone(i.names), at, at+1)
	removed := slices.Clone(i.removed)
	if at, ok := slices.BinarySearch(removed, name); !ok {
		removed = slices.Insert(removed, at, name)
	}
	if err := i.write(next, removed); err != nil {
		return err
	}
	i.names, i.removed = next, removed
	return nil
}

// forgetRemoved drops name from the removed names once its daemon dir is
// gone: nothing is left of it to leave out, and the list stays as small as
// the dirs on disk.
func (i *inventory) forgetRemoved(name string) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.refreshLocked()
	at, ok := slices.BinarySearch(i.removed, name)
	if !ok {
		return nil
	}
	removed := slices.Delete(slices.Clone(i.removed), at, at+1)
	if err := i.write(i.names, removed); err != nil {
		return err
	}
	i.removed = removed
	return nil
}

// removedList is every removed name.
func (i *inventory) removedList() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.removed)
}

func (i *inventory) write(names, removed []string) error {
	data, err := json.Marshal(inventoryFile{Version: 1, Names: append(append([]string{}, names...), i.bad...), Removed: removed})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(i.path, append(data, '\n')); err != nil {
		return fmt.Errorf("writing inventory: %w", err)
	}
	if fi, err := os.Stat(i.path); err == nil {
		i.seen = fi
	}
	return nil
}

// ReadInventory lists the names a reconciler of agentDir has spawned, and
// the entries that are not valid names (left out of the list).
func ReadInventory(agentDir string, log logr.Logger) ([]string, []Problem, error) {
	inv, err := loadInventory(InventoryPath(agentDir), log)
	if err != nil {
		return nil, nil, err
	}
	return inv.list(), inv.problems(), nil
}
