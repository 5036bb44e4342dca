package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/spec"
)

// maxHoldsFile caps the read of holds.json: names and times, far smaller.
const maxHoldsFile = 1 << 20

// HoldsPath is where the operator's holds live on one machine.
func HoldsPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "holds.json") }

// fileHolds are one machine's holds, in holds.json. It is the operator's
// intent and outlives every reconciler: an unreadable one is never
// overwritten.
type fileHolds struct{ agentDir string }

// holdsFile is holds.json.
type holdsFile struct {
	Version int             `json:"version"`
	Names   map[string]Hold `json:"names"`
}

// Holds reads holds.json; a missing file holds nothing. An entry whose
// name is not valid is an error: the file is not what this reconciler
// wrote, and guessing what it holds could start what an operator stopped.
func (f fileHolds) Holds() (map[string]Hold, error) {
	path := HoldsPath(f.agentDir)
	data, err := atomicfile.ReadCapped(path, maxHoldsFile)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Hold{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading holds %s: %w", path, err)
	}
	var hf holdsFile
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("holds %s are not valid JSON: %w", path, err)
	}
	if hf.Version != 1 {
		return nil, fmt.Errorf("holds %s: version %d, want 1", path, hf.Version)
	}
	for name := range hf.Names {
		if errs := spec.NameErrors(name); len(errs) > 0 {
			return nil, fmt.Errorf("holds %s: %q is not a daemon name", path, name)
		}
	}
	if hf.Names == nil {
		hf.Names = map[string]Hold{}
	}
	return hf.Names, nil
}

// Shared: holds.json is this machine's alone.
func (fileHolds) Shared() bool { return false }

func (f fileHolds) Hold(name string) (*Hold, error) {
	holds, err := f.Holds()
	if err != nil {
		return nil, err
	}
	return holdOf(holds, name), nil
}

// Unhold lets go of name's hold: holds.json is this machine's alone, and
// every stop and start of it holds the pass lock, so no stop can have held
// the name between a stop's SetHold and its Unhold.
func (f fileHolds) Unhold(name string) (bool, error) { return f.SetHold(name, nil) }

// SetHold rewrites holds.json; the caller serializes (Reconciler.setHold).
func (f fileHolds) SetHold(name string, h *Hold) (bool, error) {
	holds, err := f.Holds()
	if err != nil {
		return false, fmt.Errorf("%w; it is left as it is", err)
	}
	cur := holdOf(holds, name)
	switch {
	case h == nil && cur == nil:
		return false, nil
	case h == nil:
		delete(holds, name)
	default:
		next, changed := h.Merged(cur)
		if !changed {
			return false, nil
		}
		holds[name] = next
	}
	data, err := json.MarshalIndent(holdsFile{Version: 1, Names: holds}, "", "  ")
	if err != nil {
		return false, err
	}
	if err := atomicfile.Write(HoldsPath(f.agentDir), append(data, '\n')); err != nil {
		return false, fmt.Errorf("writing holds: %w", err)
	}
	return true, nil
}
