package etcdstore

import (
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"gjc.dev/reconciler/pkg/ownership"
)

// A name's election is concurrency.Election's: each candidate puts
// election/<its lease in hex> on its session's lease, and the key created
// first leads; when its lease ends the next one does. Leadership decides
// where a daemon is placed, not whether two run: owner.lock does that. So a
// machine only reads who leads when it is about to spawn or stop, and a
// stale answer costs a wait, never a second owner.

// campaign makes this store a candidate for name, once per session. The
// candidacy is in place when it returns, so the leader read next counts it.
func (s *Store) campaign(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != nil {
		select {
		case <-s.session.Done():
			// Its lease ended (a partition longer than the TTL): every
			// candidacy went with it; stand again on a new one.
			s.session, s.campaigns = nil, map[string]bool{}
		default:
		}
	}
	if s.campaigns[name] {
		return nil
	}
	ctx, cancel := s.reqCtx()
	defer cancel()
	if s.session == nil {
		// The lease is granted here, within the request's bound: the
		// session would grant it under its own context, which has none.
		l, err := s.cli.Grant(ctx, int64(s.ttl/time.Second))
		if err != nil {
			return s.unreachable(ctx, "standing for election", err)
		}
		// WithTTL too: the session's Close waits up to its TTL to revoke,
		// 60 s unless told, which a store closing while cut off would spend.
		sess, err := concurrency.NewSession(s.cli, concurrency.WithLease(l.ID), concurrency.WithTTL(int(s.ttl/time.Second)), concurrency.WithContext(s.ctx))
		if err != nil {
			return s.unreachable(ctx, "standing for election", err)
		}
		s.session = sess
	}
	key := fmt.Sprintf("%s/%x", s.keys(name).election, s.session.Lease())
	_, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, s.machine, clientv3.WithLease(s.session.Lease()))).
		Commit()
	if err != nil {
		return s.unreachable(ctx, "standing for election of "+name, err)
	}
	s.campaigns[name] = true
	return nil
}

// mustLead returns nil when this machine leads name, standing for it
// first if need be, else why not.
func (s *Store) mustLead(name string) error {
	if err := s.campaign(name); err != nil {
		return err
	}
	who, err := s.Leader(name)
	if err != nil {
		return err
	}
	if who != s.machine {
		return &ownership.LedElsewhereError{Name: name, Leader: who}
	}
	return nil
}

// Leader is the machine that leads name now, "" when none does; read
// without standing for it (a look, not a candidacy).
func (s *Store) Leader(name string) (string, error) {
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.keys(name).election+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return "", s.unreachable(ctx, "reading who leads "+name, err)
	}
	if len(resp.Kvs) == 0 {
		return "", nil
	}
	return string(resp.Kvs[0].Value), nil
}
