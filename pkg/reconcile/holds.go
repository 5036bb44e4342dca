package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gjc.dev/reconciler/pkg/atomicfile"
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
	// ReasonStopTimedOut: a stop without --force holds the name, and its
	// daemon did not exit on the control request and SIGTERM within the
	// graceful timeout. It is left running: only stop --force sends
	// SIGKILL.
	ReasonStopTimedOut = "StopTimedOut"
)

// maxHoldsFile caps the read of holds.json: names and times, far smaller.
const maxHoldsFile = 1 << 20

// HoldsPath is where the operator's holds live.
func HoldsPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "holds.json") }

// Hold is one name an operator stopped.
type Hold struct {
	Since metav1.Time `json:"since"`
	// Force: the stop that holds it allowed SIGKILL (stop --force). A hold
	// never sends a stronger signal than its stop asked for: without it,
	// an owner that outlasts its control request and SIGTERM is left
	// running (StopTimedOut).
	Force bool `json:"force,omitempty"`
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
func readHolds(agentDir string) (map[string]Hold, error) {
	path := HoldsPath(agentDir)
	data, err := atomicfile.ReadCapped(path, maxHoldsFile)
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

// setHold holds name stopped as h says (its Since is set here) or, with h
// nil, lets it go, in holds.json. A name held already keeps its Since and
// takes the latest stop's Force. The caller holds the pass lock, so no
// other reconciler rewrites the file meanwhile. It reports whether the
// file changed.
func (r *Reconciler) setHold(name string, h *Hold) (bool, error) {
	r.rewrite.Lock()
	defer r.rewrite.Unlock()
	holds, err := readHolds(r.opts.AgentDir)
	if err != nil {
		return false, fmt.Errorf("%w; it is left as it is", err)
	}
	cur, held := holds[name]
	switch {
	case h == nil && !held:
		return false, nil
	case h == nil:
		delete(holds, name)
	case held && cur.Force == h.Force:
		return false, nil
	case held:
		cur.Force = h.Force
		holds[name] = cur
	default:
		holds[name] = Hold{Since: metav1.NewTime(r.now().UTC().Truncate(time.Second)), Force: h.Force}
	}
	data, err := json.MarshalIndent(holdsFile{Version: 1, Names: holds}, "", "  ")
	if err != nil {
		return false, err
	}
	if err := atomicfile.Write(HoldsPath(r.opts.AgentDir), append(data, '\n')); err != nil {
		return false, fmt.Errorf("writing holds: %w", err)
	}
	return true, nil
}

// hasHold says whether holds.json holds name now; true when it cannot be
// read, so that nothing is lifted that may have been the operator's.
func (r *Reconciler) hasHold(name string) bool {
	holds, err := readHolds(r.opts.AgentDir)
	if err != nil {
		return true
	}
	_, held := holds[name]
	return held
}
