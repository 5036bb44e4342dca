package agentdir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"gjc.dev/reconciler/pkg/platform"
)

// The name lock is the guard that no file operation can remove: each daemon
// takes the kernel-held locks of (agent dir, name) before it reads or writes
// any file of the contract, and the kernel drops them when the daemon
// exits. An `rm -rf` of sdk/, or a restored backup, removes every file that
// says a daemon runs, but not these; so a second daemon of one name can
// never start beside a live one, whatever the files say.
//
// There are three keys per name, and a taker needs all: from the agent
// dir's absolute path as written (a symlinked agent dir retargeted under a
// live daemon keeps it), from its real path (a dir removed and restored
// under a live daemon, reached through another link, keeps it), and from
// its device and inode (two spellings of one dir, or a dir moved under a
// live daemon, keep it). Adding a key only adds conflicts.

// Keys returns the key prefixes of agentDir: by its absolute path
// as written, by its real path (links resolved: a dir restored under a live
// daemon and reached through another link), and by its identity. With the
// dir missing there is no identity key: no daemon can have taken one for a
// dir that does not exist; a taker (needDir) must have all three.
func Keys(agentDir string, needDir bool) ([]string, error) {
	abs, err := filepath.Abs(agentDir)
	if err != nil {
		return nil, err
	}
	hash := func(kind, s string) string {
		sum := sha256.Sum256([]byte(s))
		return "reconciler/" + kind + hex.EncodeToString(sum[:12])
	}
	keys := []string{hash("p", abs)}
	real, err := realPath(abs)
	if err != nil {
		return nil, fmt.Errorf("agent dir: %w", err)
	}
	keys = append(keys, hash("r", real))
	id, err := platform.DirID(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !needDir:
		return keys, nil
	case err != nil:
		return nil, fmt.Errorf("agent dir: %w", err)
	}
	return append(keys, hash("i", id)), nil
}

// realPath resolves the links of dir's longest existing prefix, so the key
// of a missing dir is the one it will have once created.
func realPath(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return "", err
	}
	realParent, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(realParent, filepath.Base(dir)), nil
}

// The last elements of the kernel-held locks of agentDir itself, under
// each of its Keys: the pass lock's and the loop lock's. No daemon name
// can be either (a DNS label never starts with a dot).
const (
	PassSuffix = "/.pass"
	LoopSuffix = "/.loop"
)

// PassLockKeys name the kernel-held locks that serialize the reconciler
// passes over agentDir: the name locks' scheme, with a last element no
// daemon name can be (a DNS label never starts with a dot).
func PassLockKeys(agentDir string) ([]string, error) {
	keys, err := Keys(agentDir, true)
	if err != nil {
		return nil, fmt.Errorf("pass lock: %w", err)
	}
	for i := range keys {
		keys[i] += PassSuffix
	}
	return keys, nil
}
