package etcdstore

import (
	"path"

	"gjc.dev/reconciler/pkg/ownership"
)

// DefaultPrefix is where a fleet's records live unless told otherwise.
const DefaultPrefix = "/reconciler"

// keys are the etcd keys of one name.
type keys struct {
	prefix, dir, state, owner, revoked, control, election, hold string
}

func keysOf(prefix, name string) keys {
	dir := path.Join(prefix, name) + "/"
	return keys{
		prefix:   prefix,
		dir:      dir,
		state:    dir + ownership.StateFile,
		owner:    dir + ownership.LockFile,
		revoked:  dir + ownership.LockFile + ".revoked",
		control:  dir + ownership.ControlFile,
		election: dir + "election",
		hold:     dir + holdKey,
	}
}

// ownerIndex is the key that says which name ownerID holds.
func ownerIndex(prefix, ownerID string) string { return path.Join(prefix, "owners", ownerID) }
