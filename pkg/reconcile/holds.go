package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/spec"
)

// Reasons of a held name.
const (
	// ReasonOperatorStopped: `reconciler stop` holds the name stopped, like
	// systemctl stop, until `reconciler start`, whatever the spec says.
	ReasonOperatorStopped = "OperatorStopped"
	// ReasonHoldsUnreadable: holds.json cannot be read, so whether an
	// operator holds the name stopped is unknown: nothing is started or
	// stopped for it until the file is fixed.
	ReasonHoldsUnreadable = "HoldsUnreadable"
)

// maxHoldsFile caps the read of holds.json: names and times, far smaller.
const maxHoldsFile = 1 << 20

// HoldsPath is where the operator's holds live.
func HoldsPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "holds.json") }

// Hold is one name an operator stopped.
type Hold struct {
	Since metav1.Time `json:"since"`
}

// holdsFile is holds.json. It is the operator's intent and outlives every
// reconciler: an unreadable one is never overwritten.
type holdsFile struct {
	Version int             `json:"version"`
	Names   map[string]Hold `json:"names"`
}

// readHolds reads holds.json; a missing file holds nothing. An entry whose
// name is not valid is an error: the file is not what this reconciler
// wrote, and guessing what it holds could start what an operator stopped.
func readHolds(files Files, agentDir string) (map[string]Hold, error) {
	path := HoldsPath(agentDir)
	data, err := files.ReadFileCapped(path, maxHoldsFile)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Hold{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading holds %s: %w", path, err)
	}
	var f holdsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("holds %s are not valid JSON: %w", path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("holds %s: version %d, want 1", path, f.Version)
	}
	for name := range f.Names {
		if errs := spec.NameErrors(name); len(errs) > 0 {
			return nil, fmt.Errorf("holds %s: %q is not a daemon name", path, name)
		}
	}
	if f.Names == nil {
		f.Names = map[string]Hold{}
	}
	return f.Names, nil
}

// setHold holds name stopped (on) or lets it go, in holds.json. The caller
// holds the pass lock, so no other reconciler rewrites the file meanwhile.
// It reports whether the file changed.
func (r *Reconciler) setHold(name string, on bool) (bool, error) {
	r.rewrite.Lock()
	defer r.rewrite.Unlock()
	holds, err := readHolds(r.files, r.opts.AgentDir)
	if err != nil {
		return false, fmt.Errorf("%w; it is left as it is", err)
	}
	if _, held := holds[name]; held == on {
		return false, nil
	}
	if on {
		holds[name] = Hold{Since: metav1.NewTime(r.now().UTC().Truncate(time.Second))}
	} else {
		delete(holds, name)
	}
	data, err := json.MarshalIndent(holdsFile{Version: 1, Names: holds}, "", "  ")
	if err != nil {
		return false, err
	}
	if err := r.files.WriteFileAtomic(HoldsPath(r.opts.AgentDir), append(data, '\n')); err != nil {
		return false, fmt.Errorf("writing holds: %w", err)
	}
	return true, nil
}
