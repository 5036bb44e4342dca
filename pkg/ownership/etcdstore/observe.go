package etcdstore

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
)

// look is one consistent read of everything kept under a name.
type look struct {
	rev                   int64
	state, owner, revoked *mvccpb.KeyValue
	control               *mvccpb.KeyValue
}

func (s *Store) look(ctx context.Context, name string) (look, error) {
	k := s.keys(name)
	// Everything under the name, at one revision (the candidacies too:
	// one per machine, ignored here).
	resp, err := s.cli.Get(ctx, k.dir, clientv3.WithPrefix())
	if err != nil {
		return look{}, s.unreachable(ctx, "reading "+name, err)
	}
	l := look{rev: resp.Header.Revision}
	for _, kv := range resp.Kvs {
		switch string(kv.Key) {
		case k.state:
			l.state = kv
		case k.owner:
			l.owner = kv
		case k.revoked:
			l.revoked = kv
		case k.control:
			l.control = kv
		}
	}
	return l, nil
}

// parseRecord reads a record as fsstore reads state.json: strictly, with
// the same parser (ownership.ParseState) and the same limits.
func parseRecord(key string, data []byte) (*ownership.State, bool, error) {
	if len(data) > maxValue {
		return nil, false, &ownership.MalformedError{Path: key, Err: fmt.Errorf("%d bytes, over the %d allowed", len(data), maxValue)}
	}
	st, legacy, err := ownership.ParseState(data)
	var bad *ownership.MalformedError
	if errors.As(err, &bad) {
		return nil, false, &ownership.MalformedError{Path: key, Field: bad.Field, Err: bad.Err}
	}
	return st, legacy, err
}

// Observe reads name's record and, in the same read, its lock: the facts
// are the lease's, not a process's. The record's owner is alive while
// owner.lock names it, or owner.lock.revoked does (it may still run until
// that expires); it is gone once neither does.
func (s *Store) Observe(name string) ownership.Observation {
	paths := ownership.PathsFor(s.agentDir, name)
	facts := ownership.Facts{Boot: s.Boot(), Now: s.Now()}
	ctx, cancel := s.reqCtx()
	defer cancel()
	l, err := s.look(ctx, name)
	if err != nil {
		// Nothing is known: the record is there as far as anyone may
		// assume, and cannot be trusted. Not malformed: it was never read.
		return ownership.Observation{Record: ownership.Record{Present: true, Paths: paths, Malformed: err}, Facts: facts}
	}
	if l.state == nil {
		return ownership.Observation{Record: ownership.Record{Paths: paths}, Facts: facts}
	}
	rec := ownership.Record{Present: true, Paths: paths, Raw: l.state.Value}
	st, legacy, err := parseRecord(s.keys(name).state, l.state.Value)
	if err != nil {
		rec.Malformed = err
		return ownership.Observation{Record: rec, Facts: facts}
	}
	rec.State, rec.Legacy = st, legacy
	facts.Process, _ = s.processFacts(ctx, name, l, st)
	return ownership.Observation{Record: rec, Facts: facts}
}

// processFacts judges whether the owner st names still holds name;
// revoked: only its revoked lock stands, and it may run until that goes.
func (s *Store) processFacts(ctx context.Context, name string, l look, st *ownership.State) (f ownership.ProcessFacts, revoked bool) {
	names := func(h holder) bool {
		return h.OwnerID == st.OwnerID && h.PID == st.PID && h.Incarnation == st.Incarnation
	}
	if l.owner != nil {
		h, err := lockAt(l.owner, true)
		switch {
		case err != nil:
			return ownership.ProcessFacts{Alive: true, Err: err}, false
		case names(h):
			return ownership.ProcessFacts{Alive: true, Equal: true, Current: h.Incarnation}, false
		}
	}
	if l.revoked != nil {
		h, err := lockAt(l.revoked, false)
		switch {
		case err != nil:
			return ownership.ProcessFacts{Alive: true, Err: err}, false
		case names(h):
			return ownership.ProcessFacts{Alive: true, Current: h.Incarnation,
				Err: fmt.Errorf("its lease was revoked; it may run until owner.lock.revoked expires, within %s", s.ttl)}, true
		}
	}
	// Not this name's holder: gone, unless its owner id holds another
	// name (a record copied from there), which proves nothing here.
	resp, err := s.cli.Get(ctx, ownerIndex(s.prefix, st.OwnerID))
	switch {
	case err != nil:
		return ownership.ProcessFacts{Alive: true, Err: s.unreachable(ctx, "reading owner "+st.OwnerID, err)}, false
	case len(resp.Kvs) == 0:
		return ownership.ProcessFacts{}, false
	case string(resp.Kvs[0].Value) != name:
		return ownership.ProcessFacts{Alive: true, NotDaemon: &ownership.NotDaemonError{
			PID: st.PID, Want: ownership.ClaimOf(ownership.PathsFor(s.agentDir, name), st.OwnerID),
			Why: fmt.Sprintf("its owner id holds %q, not this name", resp.Kvs[0].Value)}}, false
	}
	// Its owner id holds this name, yet owner.lock is not its: someone
	// removed the lock under it. It may run on; nothing proves it either way.
	return ownership.ProcessFacts{Alive: true, Err: errors.New("its owner id holds this name but owner.lock does not name it")}, false
}
