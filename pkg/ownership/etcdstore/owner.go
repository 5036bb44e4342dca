package etcdstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"gjc.dev/reconciler/pkg/ownership"
)

// holder is owner.lock's value (and owner.lock.revoked's): who holds the
// name, and by which lease.
type holder struct {
	OwnerID     string `json:"ownerId"`
	PID         int    `json:"pid"`
	Incarnation string `json:"incarnation"`
	Machine     string `json:"machine"`
	Lease       int64  `json:"lease"`
}

func (h holder) marshal() []byte {
	b, _ := json.Marshal(h) // plain strings and integers: cannot fail
	return b
}

// maxValue bounds what is read from any key: a record is a few hundred
// bytes, and a key anyone could write must not cost more than that.
const maxValue = 64 << 10

var ownerIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// parseHolder reads a lock value strictly: every field present and of its
// type, nothing else; key names the key for the error.
func parseHolder(key string, data []byte) (holder, error) {
	bad := func(format string, args ...any) (holder, error) {
		return holder{}, &ownership.MalformedError{Path: key, Err: fmt.Errorf(format, args...)}
	}
	if len(data) > maxValue {
		return bad("%d bytes, over the %d allowed", len(data), maxValue)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var h holder
	if err := dec.Decode(&h); err != nil {
		return bad("not a lock: %v", err)
	}
	if dec.More() {
		return bad("trailing data after the lock")
	}
	switch {
	case !ownerIDPattern.MatchString(h.OwnerID):
		return bad("ownerId %q is not an owner id", h.OwnerID)
	case h.PID <= 0:
		return bad("pid must be > 0, got %d", h.PID)
	case h.Incarnation == "":
		return bad("incarnation is empty")
	case h.Machine == "":
		return bad("machine is empty")
	case h.Lease == 0:
		return bad("lease is 0")
	}
	return h, nil
}

// lockAt parses kv as a lock. An owner.lock must be attached to the lease
// its value names (attached says so): one that is not was not written by
// Acquire, and proves nothing.
func lockAt(kv *mvccpb.KeyValue, attached bool) (holder, error) {
	key := string(kv.Key)
	h, err := parseHolder(key, kv.Value)
	if err != nil {
		return holder{}, err
	}
	if attached && kv.Lease != h.Lease {
		return holder{}, &ownership.MalformedError{Path: key, Err: fmt.Errorf("names lease %x but is attached to %x", h.Lease, kv.Lease)}
	}
	return h, nil
}
