package etcdstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
)

// holdKey is the last element of a name's hold, <prefix>/<name>/hold:
// under the name, so every machine's watch of the name (Watch) pokes its
// loop the moment a stop or start anywhere changes it.
const holdKey = "hold"

// maxHoldTries bounds how many tries a hold's compare-and-swap makes against
// other machines' stops of the same name (each stop writes, so each of n
// machines stopping at once can cost the others one try).
const maxHoldTries = 8

// The fleet's holds (reconcile.Holds): an operator's stop on any machine
// holds the name on every machine. A hold is never leased: the operator's
// intent outlives every machine, and only a start lets it go. One that
// cannot be read or parsed is an error, never "not held".

// Shared: every machine of the fleet reads these holds.
func (s *Store) Shared() bool { return true }

// Hold is name's hold, nil when it is not held.
func (s *Store) Hold(name string) (*ownership.Hold, error) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	key := s.keys(name).hold
	resp, err := s.cli.Get(ctx, key)
	if err != nil {
		return nil, s.unreachable(ctx, "reading the hold of "+name, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	return parseHold(key, resp.Kvs[0].Value)
}

// Holds is every held name of the fleet.
func (s *Store) Holds() (map[string]ownership.Hold, error) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, s.unreachable(ctx, "listing the holds", err)
	}
	out := map[string]ownership.Hold{}
	for _, kv := range resp.Kvs {
		name, ok := holdName(s.prefix, string(kv.Key))
		if !ok {
			continue
		}
		h, err := s.Hold(name)
		if err != nil {
			return nil, err
		}
		if h != nil { // let go of since the listing
			out[name] = *h
		}
	}
	return out, nil
}

// holdName is the name whose hold key is, if it is one.
func holdName(prefix, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, prefix+"/")
	if !ok {
		return "", false
	}
	name, last, ok := strings.Cut(rest, "/")
	return name, ok && last == holdKey && name != ""
}

// SetHold holds name as h.Merged says, or with h nil lets it go, in one
// compare-and-swap on the key as read, so that two machines' stops of one
// name keep the first's Since and Machine. A hold it cannot parse is left
// as it is.
//
// A stop writes the hold even when it finds it as it would leave it: the
// write moves the key's revision, which is how a refused stop elsewhere
// learns that another stop relies on the hold it wrote (Unhold).
func (s *Store) SetHold(name string, h *ownership.Hold) (bool, error) {
	key := s.keys(name).hold
	if h == nil {
		ctx, cancel := s.reqCtx()
		defer cancel()
		resp, err := s.cli.Delete(ctx, key)
		if err != nil {
			return false, s.unreachable(ctx, "letting go of the hold of "+name, err)
		}
		return resp.Deleted > 0, nil
	}
	for range maxHoldTries {
		changed, created, rev, err := s.trySetHold(name, key, *h)
		if err != nil {
			return false, err
		}
		if rev != 0 {
			// Only a hold this write made where none was is this
			// store's to lift (Unhold): one it merged into was another
			// stop's first, whatever --force either asked.
			s.mu.Lock()
			if s.written == nil {
				s.written = map[string]int64{}
			}
			if created {
				s.written[name] = rev
			} else {
				delete(s.written, name)
			}
			s.mu.Unlock()
			return changed, nil
		}
	}
	return false, fmt.Errorf("holding %s: %s changed under every one of %d tries", name, key, maxHoldTries)
}

// trySetHold is one read and compare-and-swap of SetHold; rev is the
// revision of its write, 0 when another machine wrote the key in between,
// and created says the key was not there when read.
func (s *Store) trySetHold(name, key string, h ownership.Hold) (changed, created bool, rev int64, err error) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, key)
	if err != nil {
		return false, false, 0, s.unreachable(ctx, "reading the hold of "+name, err)
	}
	var cur *ownership.Hold
	modRev := int64(0)
	if len(resp.Kvs) > 0 {
		if cur, err = parseHold(key, resp.Kvs[0].Value); err != nil {
			return false, false, 0, fmt.Errorf("%w; it is left as it is", err)
		}
		modRev = resp.Kvs[0].ModRevision
	}
	next, changed := h.Merged(cur)
	data, err := json.Marshal(next)
	if err != nil {
		return false, false, 0, err
	}
	txn, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", modRev)).
		Then(clientv3.OpPut(key, string(data))).Commit()
	if err != nil {
		return false, false, 0, s.unreachable(ctx, "holding "+name, err)
	}
	if !txn.Succeeded {
		return false, false, 0, nil
	}
	return changed, cur == nil, txn.Header.Revision, nil
}

// Unhold lets go of name's hold only if this store's last SetHold of name
// made it where none was, and it is still as that write left it: a stop
// anywhere that held the name since wrote the key too, and its hold is
// kept. It reports whether it let go.
func (s *Store) Unhold(name string) (bool, error) {
	s.mu.Lock()
	rev, ok := s.written[name]
	delete(s.written, name)
	s.mu.Unlock()
	if !ok {
		return false, nil
	}
	key := s.keys(name).hold
	ctx, cancel := s.reqCtx()
	defer cancel()
	txn, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
		Then(clientv3.OpDelete(key)).Commit()
	if err != nil {
		return false, s.unreachable(ctx, "letting go of the hold of "+name, err)
	}
	return txn.Succeeded, nil
}

// parseHold reads a hold strictly: what this reconciler did not write is
// not guessed at, since guessing could start what an operator stopped.
func parseHold(key string, data []byte) (*ownership.Hold, error) {
	if len(data) > maxValue {
		return nil, fmt.Errorf("hold %s: %d bytes, over the %d allowed", key, len(data), maxValue)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var h ownership.Hold
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("hold %s is not a hold: %w", key, err)
	}
	if h.Since.IsZero() {
		return nil, fmt.Errorf("hold %s has no since", key)
	}
	return &h, nil
}
