package reconcile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/spec"
)

// LastGoodPath is lastgood.json: each spec file's last valid objects, as
// written (secret references, never their values), so that a reconciler
// started on a broken file keeps what the file last declared (DESIGN 6).
//
// It is a copy of what the spec said, not anyone's intent: when it cannot
// be used (malformed, over the cap, not a regular file, saved for another
// source) that is logged at error level and said by every status while a
// broken file keeps nothing for it, the file is left as it is to be looked
// at, and the next save replaces it (a rename over it: a symbolic link
// there is replaced, never followed).
func LastGoodPath(agentDir string) string {
	return filepath.Join(controlDir(agentDir), "lastgood.json")
}

// maxLastGoodFile caps lastgood.json, read and written. Its JSON is about
// the size of the YAML it came from, and one spec file is capped at 1 MiB.
const maxLastGoodFile = 4 << 20

// readLastGood reads lastgood.json; a missing file is nil, nil.
func readLastGood(agentDir string) (*spec.LastGood, error) {
	path := LastGoodPath(agentDir)
	data, err := atomicfile.ReadCapped(path, maxLastGoodFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	lg, err := spec.DecodeLastGood(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lg, nil
}

// UseLastGood hands loader, before its first Load, the objects
// lastgood.json saved for its source. A file that cannot be used is
// logged and recorded in the loader, whose results say why while a broken
// file keeps nothing.
func UseLastGood(agentDir string, loader *spec.Loader, log logr.Logger) {
	lg, err := readLastGood(agentDir)
	switch {
	case err != nil:
		log.Error(err, "last known good objects not used: a spec file broken at start keeps nothing; the file is replaced once a spec file validates")
		loader.LastGoodUnusable(err.Error() + "; replaced once a spec file validates")
	case lg != nil && !loader.UseLastGood(lg):
		log.Info("lastgood.json is of another spec source; not used", "file", LastGoodPath(agentDir), "savedFor", lg.Source)
	}
}

// SaveLastGood writes lastgood.json when what res keeps differs from what
// the file holds: a spec file's objects as it last validated, and a broken
// file's as they were kept. Errors are logged: a failed save loses only
// what a restart on a broken file would keep.
func (r *Reconciler) SaveLastGood(res *spec.Result) {
	path := LastGoodPath(r.opts.AgentDir)
	data, omitted, err := spec.EncodeLastGood(res)
	if err != nil {
		r.log.Error(err, "saving the last known good objects", "file", path)
		return
	}
	cur, rerr := atomicfile.ReadCapped(path, maxLastGoodFile)
	if rerr == nil && bytes.Equal(cur, data) {
		return
	}
	if len(omitted) > 0 {
		r.log.Info("not saved as last known good: a token written inline (value) is never copied to lastgood.json; use fromEnv or fromFile", "names", omitted)
	}
	if !saveWanted(res, cur, rerr) {
		return
	}
	if len(data) > maxLastGoodFile {
		// A stale copy is worse than none: it could bring back objects
		// the spec has dropped since.
		r.log.Error(fmt.Errorf("%d bytes, over %d", len(data), maxLastGoodFile), "last known good objects not saved; the old copy is removed", "file", path)
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			r.log.Error(err, "removing the old last known good objects", "file", path)
		}
		return
	}
	if err := atomicfile.Write(path, data); err != nil {
		r.log.Error(err, "saving the last known good objects", "file", path)
	}
}

// saveWanted decides whether a result's save replaces what the file holds
// (cur, or the error reading it). With something kept, always. With
// nothing kept (every file broken with nothing to keep, or a source that
// validly has no files), only the source's own copy is replaced, so that
// objects its files no longer declare cannot come back; another source's
// copy, or a file that cannot be read, stays as it is.
func saveWanted(res *spec.Result, cur []byte, readErr error) bool {
	if len(res.Kept) > 0 {
		return true
	}
	if readErr != nil {
		return false
	}
	lg, err := spec.DecodeLastGood(cur)
	return err == nil && lg.Source == res.Source
}
