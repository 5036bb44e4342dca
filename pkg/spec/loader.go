package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Result is the desired state as of one Load. It is shared between Loads that
// see no change, so callers must treat it as read-only.
type Result struct {
	// Daemons is the desired set, sorted by name: every valid source's objects,
	// and the last known good objects of every source that is invalid now.
	Daemons  []*Daemon
	Sources  []SourceStatus
	Errors   []Issue
	Warnings []Issue
	// Source is the spec source, absolute; Kept is each of its files' last
	// valid objects as written: what lastgood.json saves.
	Source string
	Kept   []KeptSource
	// LastGoodProblem says why lastgood.json was not used, while a broken
	// file keeps nothing that it could have kept.
	LastGoodProblem string
}

// Valid reports whether every source read, parsed and validated. While it is
// false, nothing may be pruned: a missing name may be a broken file's.
func (r *Result) Valid() bool { return len(r.Errors) == 0 }

// Names lists the desired daemons' names.
func (r *Result) Names() []string {
	out := make([]string, len(r.Daemons))
	for i, d := range r.Daemons {
		out[i] = d.Name()
	}
	return out
}

// Lookup returns the desired daemon named name, or nil. Daemons is sorted
// by name, so this is a binary search, cheap on every single-name reconcile.
func (r *Result) Lookup(name string) *Daemon {
	i, ok := slices.BinarySearchFunc(r.Daemons, name, func(d *Daemon, n string) int { return strings.Compare(d.Name(), n) })
	if !ok {
		return nil
	}
	return r.Daemons[i]
}

// SourceStatus says how one spec file contributes.
type SourceStatus struct {
	File  string
	Valid bool
	// LastKnownGood is set when the file is invalid now and its objects are the
	// ones it contributed when it last validated.
	LastKnownGood bool
	// FromDisk is set with LastKnownGood when those objects were read back
	// from lastgood.json: the process started on the broken file.
	FromDisk bool
}

// Keeping sorts the invalid sources of a result by what stands in for
// them: the objects this process saw them validate with (Memory), the
// ones lastgood.json saved (Disk), or nothing: then the names they
// declare are neither started nor stopped, and nothing is pruned.
type Keeping struct {
	Memory, Disk, Nothing []string
}

// Keeping says what the invalid sources keep.
func (r *Result) Keeping() Keeping {
	var k Keeping
	for _, s := range r.Sources {
		switch {
		case s.Valid:
		case s.FromDisk:
			k.Disk = append(k.Disk, s.File)
		case s.LastKnownGood:
			k.Memory = append(k.Memory, s.File)
		default:
			k.Nothing = append(k.Nothing, s.File)
		}
	}
	return k
}

// Loader reads a spec source (a file, or a directory of *.yaml/*.yml files)
// with last-known-good semantics per file. It re-reads only files whose stamp
// changed, so calling Load on every event is cheap. Environment variables are
// read when a file is (re)evaluated. A Loader is not safe for concurrent use.
type Loader struct {
	path        string
	abs         string
	lookupEnv   func(string) (string, bool)
	now         func() time.Time
	removeGrace time.Duration
	order       []string
	files       map[string]*fileState
	listErr     string
	last        *Result
	// saved is lastgood.json's content until the first Load uses it;
	// savedProblem why it could not be used, if so.
	saved        *LastGood
	savedProblem string
}

// DefaultRemoveGrace is how long a file gone from a directory source keeps
// its objects: an editor that renames the old file to a backup before
// writing the new one leaves a gap, and a save must never prune.
const DefaultRemoveGrace = 2 * time.Second

// NewLoader returns a loader for path, a file or a directory.
func NewLoader(path string) *Loader {
	return &Loader{path: path, abs: absPath(path), lookupEnv: os.LookupEnv, now: time.Now, removeGrace: DefaultRemoveGrace, files: map[string]*fileState{}}
}

// SetRemoveGrace changes DefaultRemoveGrace for this loader.
func (l *Loader) SetRemoveGrace(d time.Duration) { l.removeGrace = d }

// Load returns the desired state, re-reading what changed since the last call.
func (l *Loader) Load() *Result {
	now := l.now()
	paths, err := l.list()
	changed := false
	listErr := ""
	if err != nil {
		listErr = err.Error()
	} else {
		var wentGone bool
		paths, wentGone = l.withGone(paths, now)
		if wentGone || !slices.Equal(paths, l.order) {
			changed = true
			for p := range l.files {
				if !slices.Contains(paths, p) {
					delete(l.files, p)
				}
			}
		}
		l.order = paths
	}
	if l.saved != nil {
		l.restoreSaved(err == nil)
		changed = true
	}
	if listErr != l.listErr {
		changed = true
		l.listErr = listErr
	}
	// Files are independent until merge, and YAML decoding dominates a full
	// load, so they are refreshed in parallel.
	refreshed := make([]bool, len(l.order))
	var wg sync.WaitGroup
	for i, p := range l.order {
		fs, ok := l.files[p]
		if !ok {
			fs = &fileState{path: p, abs: absPath(p)}
			l.files[p] = fs
		}
		if fs.gone() {
			continue
		}
		wg.Go(func() { refreshed[i] = fs.refresh(now, l.lookupEnv) })
	}
	wg.Wait()
	changed = changed || slices.Contains(refreshed, true)
	if !changed && l.last != nil {
		return l.last
	}
	l.last = l.merge()
	return l.last
}

// withGone keeps, besides the listed files, those that were listed before and
// are gone for less than the grace; they fail like an unreadable file, so
// their last known good stays desired and nothing is pruned meanwhile. A file
// counts as removed only when a load after the grace still finds it gone.
// wentGone reports a file newly found gone.
func (l *Loader) withGone(listed []string, now time.Time) (paths []string, wentGone bool) {
	paths = listed
	for _, p := range l.order {
		fs := l.files[p]
		if slices.Contains(listed, p) {
			fs.goneSince = time.Time{}
			continue
		}
		if !fs.gone() {
			fs.goneSince = now
			fs.readErr = fmt.Sprintf("gone from the directory; its objects stay desired until it has been gone for %v", l.removeGrace)
			fs.content, fs.docs = nil, nil
			wentGone = true
		}
		if now.Sub(fs.goneSince) < l.removeGrace {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, wentGone
}

// NextLook is when a Load may change the result with no file event: the end
// of a gone file's grace. It is zero when no grace is running.
func (l *Loader) NextLook() time.Time {
	var next time.Time
	for _, p := range l.order {
		if fs := l.files[p]; fs.gone() {
			if at := fs.goneSince.Add(l.removeGrace); next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// list names the source's files, sorted. A directory contributes its
// non-hidden *.yaml and *.yml entries, not recursively.
func (l *Loader) list() ([]string, error) {
	fi, err := os.Stat(l.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", l.path)
		}
		return nil, fmt.Errorf("%s: %w", l.path, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return []string{l.path}, nil
	}
	entries, err := os.ReadDir(l.path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.path, unwrapPathError(err))
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() || (!strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml")) {
			continue
		}
		out = append(out, filepath.Join(l.path, n))
	}
	sort.Strings(out)
	return out, nil
}

// merge applies the duplicate-name rule across files, advances each valid
// file's last known good, and assembles the result.
func (l *Loader) merge() *Result {
	res := &Result{Source: l.abs}
	if l.listErr != "" {
		res.Errors = append(res.Errors, Issue{File: l.path, Index: -1, Detail: strings.TrimPrefix(l.listErr, l.path+": ")})
		if len(l.order) == 0 {
			res.Sources = append(res.Sources, SourceStatus{File: l.path})
		}
	}
	dups := l.duplicates()
	for _, p := range l.order {
		fs := l.files[p]
		var errs []Issue
		if fs.readErr != "" {
			errs = append(errs, Issue{File: p, Index: -1, Detail: fs.readErr})
		}
		for _, d := range fs.docs {
			errs = append(errs, d.errs...)
			if others := dups[d.name]; d.name != "" && len(others) > 1 {
				here := location(p, d.index)
				var elsewhere []string
				for _, o := range others {
					if o != here {
						elsewhere = append(elsewhere, o)
					}
				}
				errs = append(errs, Issue{File: p, Index: d.index, Field: "metadata.name",
					Detail: (&field.Error{Type: field.ErrorTypeDuplicate, BadValue: d.name, Detail: "DuplicateName: also declared in " + strings.Join(elsewhere, ", ")}).ErrorBody()})
			}
			res.Warnings = append(res.Warnings, d.warns...)
		}
		valid := len(errs) == 0
		if valid {
			// A new slice: the last Result's Kept shares the old one.
			fs.good, fs.goodSaved = nil, nil
			for _, d := range fs.docs {
				fs.good = append(fs.good, d.daemon)
				fs.goodSaved = append(fs.goodSaved, SavedObject{Index: d.index, Object: d.daemon.Object})
			}
			fs.hasGood, fs.fromDisk, fs.restoreErrs = true, false, nil
		}
		res.Errors = append(res.Errors, errs...)
		if !valid && fs.fromDisk {
			res.Errors = append(res.Errors, fs.restoreErrs...)
		}
		res.Sources = append(res.Sources, SourceStatus{File: p, Valid: valid, LastKnownGood: !valid && fs.hasGood, FromDisk: !valid && fs.hasGood && fs.fromDisk})
		res.Daemons = append(res.Daemons, fs.good...)
		if fs.hasGood {
			res.Kept = append(res.Kept, KeptSource{File: fs.abs, Objects: fs.goodSaved})
		}
	}
	if l.savedProblem != "" && len(res.Keeping().Nothing) > 0 {
		res.LastGoodProblem = l.savedProblem
	}
	sort.SliceStable(res.Daemons, func(i, j int) bool { return res.Daemons[i].Name() < res.Daemons[j].Name() })
	return res
}

// duplicates maps each name to every place it is declared. An invalid file
// also counts its last known good names: they are still desired, so another
// file may not take them over.
func (l *Loader) duplicates() map[string][]string {
	seen := map[string][]string{}
	add := func(name, loc string) {
		if name != "" && !slices.Contains(seen[name], loc) {
			seen[name] = append(seen[name], loc)
		}
	}
	for _, p := range l.order {
		fs := l.files[p]
		for _, d := range fs.docs {
			add(d.name, location(p, d.index))
		}
		if !fs.currentlyClean() {
			// goodSaved, not good: a restored object whose secrets do not
			// resolve now is still the file's, and still not another's.
			for _, o := range fs.goodSaved {
				if !fs.declares(o.Object.Name) {
					add(o.Object.Name, location(p, o.Index))
				}
			}
		}
	}
	return seen
}

func location(file string, index int) string { return fmt.Sprintf("%s[%d]", file, index) }

// LoadOnce reads a source once, for commands that do not watch it.
func LoadOnce(path string) *Result { return NewLoader(path).Load() }
