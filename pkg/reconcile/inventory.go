package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"gjc.dev/reconciler/pkg/platform"
)

// inventory is the set of names this reconciler spawned: a name that leaves
// the spec is stopped only if it is here, so a daemon someone else runs is
// never pruned.
type inventory struct {
	mu    sync.Mutex
	path  string
	names []string
}

type inventoryFile struct {
	Version int      `json:"version"`
	Names   []string `json:"names"`
}

func loadInventory(path string) (*inventory, error) {
	inv := &inventory{path: path}
	data, err := platform.ReadFileCapped(path, platform.MaxLeaseSize)
	if errors.Is(err, os.ErrNotExist) {
		return inv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading inventory %s: %w", path, err)
	}
	var f inventoryFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		return nil, fmt.Errorf("inventory %s is not a version 1 inventory; move it aside to start over", path)
	}
	inv.names = f.Names
	slices.Sort(inv.names)
	return inv, nil
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

// add records a name before its daemon is spawned, so a crash between the
// spawn and the write cannot leave a managed daemon unlisted.
func (i *inventory) add(name string) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	at, ok := slices.BinarySearch(i.names, name)
	if ok {
		return nil
	}
	next := slices.Insert(slices.Clone(i.names), at, name)
	if err := i.write(next); err != nil {
		return err
	}
	i.names = next
	return nil
}

func (i *inventory) remove(name string) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	at, ok := slices.BinarySearch(i.names, name)
	if !ok {
		return nil
	}
	next := slices.Delete(slices.Clone(i.names), at, at+1)
	if err := i.write(next); err != nil {
		return err
	}
	i.names = next
	return nil
}

func (i *inventory) write(names []string) error {
	data, err := json.Marshal(inventoryFile{Version: 1, Names: append([]string{}, names...)})
	if err != nil {
		return err
	}
	if err := platform.WriteFileAtomic(i.path, append(data, '\n')); err != nil {
		return fmt.Errorf("writing inventory: %w", err)
	}
	return nil
}

// ReadInventory lists the names a reconciler of agentDir has spawned.
func ReadInventory(agentDir string) ([]string, error) {
	inv, err := loadInventory(InventoryPath(agentDir))
	if err != nil {
		return nil, err
	}
	return inv.list(), nil
}
