package localapi

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// DirHeader names, in every request, the agent dir the client means. A
// socket path is no proof of whose loop answers on it: a link at api.sock,
// or at any dir on the way to it, leads to another agent dir's loop. The
// loop acts only on a request for its own dir.
const DirHeader = "Reconciler-Agent-Dir"

// DirID is an agent dir as the kernel knows it: its device and inode, the
// identity compared, and its real path, for messages.
type DirID struct {
	Path     string
	Dev, Ino uint64
}

// IdentifyDir is agentDir's identity now.
func IdentifyDir(agentDir string) (DirID, error) {
	real, err := filepath.EvalSymlinks(agentDir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return DirID{}, fmt.Errorf("agent dir %s: %w", agentDir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return DirID{}, fmt.Errorf("agent dir %s: %w", agentDir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return DirID{}, fmt.Errorf("agent dir %s: not a directory", agentDir)
	case !ok:
		return DirID{}, fmt.Errorf("agent dir %s: no device and inode (%T)", agentDir, fi.Sys())
	}
	// Dev is an int32 on darwin.
	return DirID{Path: real, Dev: uint64(st.Dev), Ino: st.Ino}, nil
}

// header is d as DirHeader's value: any path, escaped.
func (d DirID) header() string {
	return url.Values{
		"path": {d.Path},
		"dev":  {strconv.FormatUint(d.Dev, 10)},
		"ino":  {strconv.FormatUint(d.Ino, 10)},
	}.Encode()
}

// parseDirHeader reads a DirHeader value.
func parseDirHeader(v string) (DirID, error) {
	q, err := url.ParseQuery(v)
	if err != nil {
		return DirID{}, err
	}
	var d DirID
	for _, f := range []struct {
		key string
		set func(string) error
	}{
		{"path", func(s string) error {
			if !filepath.IsAbs(s) {
				return errors.New("not an absolute path")
			}
			d.Path = s
			return nil
		}},
		{"dev", func(s string) (err error) { d.Dev, err = strconv.ParseUint(s, 10, 64); return err }},
		{"ino", func(s string) (err error) { d.Ino, err = strconv.ParseUint(s, 10, 64); return err }},
	} {
		vs := q[f.key]
		if len(vs) != 1 {
			return DirID{}, fmt.Errorf("want one %s, got %d", f.key, len(vs))
		}
		if err := f.set(vs[0]); err != nil {
			return DirID{}, fmt.Errorf("%s: %w", f.key, err)
		}
	}
	return d, nil
}

// decideDir is whether a loop serving loop acts on a request whose
// DirHeader values are values: only when the request names exactly one
// dir and it is the loop's (same device and inode; the paths may differ
// through links or bind mounts and still be the one dir). A request that
// names none comes from a client older than this loop: refused, not
// guessed at. A loop that does not know its own dir refuses everything.
func decideDir(loop DirID, values []string) error {
	switch {
	case loop.Path == "":
		return errors.New("refused: this loop does not know its own agent dir; nothing was done")
	case len(values) == 0:
		return fmt.Errorf("refused: the request does not say which agent dir it is for (it comes from a reconciler older than this loop): use the reconciler binary the loop of %s runs; nothing was done", loop.Path)
	case len(values) > 1:
		return fmt.Errorf("refused: the request names %d agent dirs; nothing was done", len(values))
	}
	req, err := parseDirHeader(values[0])
	if err != nil {
		return fmt.Errorf("refused: the request's %s header: %w; nothing was done", DirHeader, err)
	}
	if req.Dev != loop.Dev || req.Ino != loop.Ino {
		return fmt.Errorf("refused: this loop serves the agent dir %s, and the request is for the agent dir %s (a link on the way to %s's socket leads to another agent dir's loop); nothing was done",
			loop.Path, req.Path, req.Path)
	}
	return nil
}
