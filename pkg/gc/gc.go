// Package gc finds what crashed owners, killed reconcilers and interrupted
// writes leave under <agentDir>/sdk/daemons, and removes what is proven
// stale. It never removes anything whose owner is alive or cannot be proven
// dead; it says why it kept each thing.
package gc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
)

// Kinds of things gc looks at.
const (
	KindOwnerLock   = "owner-lock"
	KindReclaimLock = "reclaim-lock"
	KindControl     = "control"
	KindTemp        = "temp"
	KindQuarantine  = "quarantine"
	KindState       = "stopped-record"
	KindRotatedLog  = "rotated-log"
)

// Why a thing is kept.
const (
	KeepAlive        = "alive"
	KeepEPERM        = "eperm"
	KeepUnverifiable = "unverifiable"
	KeepRecent       = "recent"
	KeepManaged      = "managed"
)

// leftoverAge: a temp or quarantine file younger than this may belong to a
// write in progress; real writes take milliseconds.
const leftoverAge = 10 * time.Minute

// Item is one thing gc looked at.
type Item struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Stale  bool   `json:"stale"`
	Action string `json:"action"` // "keep", "would remove", "removed", "failed"
	Reason string `json:"reason"`
}

// Summary counts a run.
type Summary struct {
	Discovered  int `json:"discovered"`
	Stale       int `json:"stale"`
	Alive       int `json:"alive"`
	Kept        int `json:"kept"`
	WouldRemove int `json:"wouldRemove"`
	Removed     int `json:"removed"`
	Failed      int `json:"failed"`
}

// Report is a whole run.
type Report struct {
	Prune   bool    `json:"prune"`
	Items   []Item  `json:"items"`
	Summary Summary `json:"summary"`
}

// Line is the summary line of DESIGN section 7.
func (r *Report) Line() string {
	s := r.Summary
	if r.Prune {
		return fmt.Sprintf("discovered=%d stale=%d alive=%d kept=%d removed=%d failed=%d", s.Discovered, s.Stale, s.Alive, s.Kept, s.Removed, s.Failed)
	}
	return fmt.Sprintf("discovered=%d stale=%d alive=%d kept=%d would_remove=%d failed=%d", s.Discovered, s.Stale, s.Alive, s.Kept, s.WouldRemove, s.Failed)
}

// Options for a run. Managed names (desired by a spec, or in the inventory)
// keep their records: history for status, and the loop's to prune.
type Options struct {
	AgentDir string
	Managed  []string
	Prune    bool
	// KeepAllRecords keeps every state.json (the spec could not be read, so
	// any name may be declared).
	KeepAllRecords bool
	Probe          fsstore.Probe
	Now            time.Time
}

// Run looks at every daemon dir and, with Prune, removes what is stale,
// each file by exact unlink of the lease it judged.
func Run(o Options) (*Report, error) {
	if o.Probe == nil {
		o.Probe = fsstore.SystemProbe()
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	root := filepath.Join(o.AgentDir, "sdk", "daemons")
	entries, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", root, err)
	}
	rep := &Report{Prune: o.Prune, Items: []Item{}}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		paths := ownership.PathsFor(o.AgentDir, e.Name())
		// A dir we would refuse to act in is reported, never entered.
		if err := atomicfile.CheckPrivateDir(paths.Dir); err != nil {
			rep.add(Item{Path: paths.Dir, Kind: "daemon-dir", Action: "keep", Reason: KeepUnverifiable + ": " + err.Error()})
			continue
		}
		s := &scan{o: o, paths: paths, managed: o.KeepAllRecords || slices.Contains(o.Managed, e.Name()), rep: rep}
		s.dir()
		s.busFiles(e.Name())
	}
	return rep, nil
}

func (r *Report) add(it Item) {
	r.Summary.Discovered++
	switch {
	case it.Stale:
		r.Summary.Stale++
	case strings.HasPrefix(it.Reason, KeepAlive):
		r.Summary.Alive++
		r.Summary.Kept++
	default:
		r.Summary.Kept++
	}
	switch it.Action {
	case "would remove":
		r.Summary.WouldRemove++
	case "removed":
		r.Summary.Removed++
	case "failed":
		r.Summary.Failed++
	}
	r.Items = append(r.Items, it)
}
