package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// TrackedPath is the tracked owners file (held.json): safety state, not a report.
//
// A reconciler holds a process reference to each live owner it proved; an
// owner keeps running when its record vanishes (an operator's rm -rf, a
// restored backup) until its next heartbeat finds the loss, and the
// reference is how the reconciler knows not to start a second one
// meanwhile. The next reconciler (a --once, a restarted loop) must know of
// those owners too, so they are saved here after every look at a name, and
// read back, once, before it decides anything. status.json is a report and
// may be deleted at any time; this file is not a report. It names each
// process exactly (pid, incarnation, boot), so a reused PID is never taken
// for a tracked owner.
func TrackedPath(agentDir string) string { return filepath.Join(controlDir(agentDir), "held.json") }

// trackedFile is held.json.
type trackedFile struct {
	Version int                     `json:"version"`
	SavedAt time.Time               `json:"savedAt"`
	Owners  map[string]TrackedOwner `json:"owners"`
}

// maxTrackedFile caps what is read of held.json: one small entry per name.
const maxTrackedFile = 4 << 20

// saveTracked records name's tracked owner (nil: none) and writes every owner
// this reconciler holds a reference to. Each name's worker reports its own
// (a name's state is its worker's alone); saves are serialized, so an older
// snapshot never lands after a newer one.
func (r *Reconciler) saveTracked(name string, h *TrackedOwner) {
	r.trackedMu.Lock()
	defer r.trackedMu.Unlock()
	if h != nil {
		r.tracked[name] = *h
	} else {
		delete(r.tracked, name)
	}
	if r.trackedBroken || (r.trackedSaved && maps.Equal(r.tracked, r.savedTracked)) {
		return
	}
	f := trackedFile{Version: 1, SavedAt: r.now().UTC(), Owners: r.tracked}
	data, err := json.MarshalIndent(f, "", "  ")
	if err == nil {
		err = atomicfile.Write(TrackedPath(r.opts.AgentDir), append(data, '\n'))
	}
	if err != nil {
		r.log.Error(err, "saving the held owners", "file", TrackedPath(r.opts.AgentDir))
		return
	}
	r.savedTracked, r.trackedSaved = maps.Clone(r.tracked), true
}

// readTracked reads held.json: the owners by name, when it was saved, and the
// entries whose names are not valid, left out. A missing file is none.
func readTracked(agentDir string) (map[string]TrackedOwner, time.Time, []Problem, error) {
	path := TrackedPath(agentDir)
	data, err := atomicfile.ReadCapped(path, maxTrackedFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, time.Time{}, nil, err
	}
	if err != nil {
		return nil, time.Time{}, nil, fmt.Errorf("reading held owners: %w", err)
	}
	var f trackedFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, time.Time{}, nil, fmt.Errorf("held owners %s are not valid JSON: %w", path, err)
	}
	if f.Version != 1 {
		return nil, time.Time{}, nil, fmt.Errorf("held owners %s: version %d, want 1", path, f.Version)
	}
	var bad []Problem
	for _, name := range slices.Sorted(maps.Keys(f.Owners)) {
		if p := badName(path, name); p != nil {
			bad = append(bad, *p)
			delete(f.Owners, name)
		}
	}
	return f.Owners, f.SavedAt, bad, nil
}
