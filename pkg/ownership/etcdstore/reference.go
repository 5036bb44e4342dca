package etcdstore

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
)

// Reference holds the owner st names by its owner id: it runs while its
// lease holds owners/<id>, or while a revoked lock of its name still
// stands, record or no record.
func (s *Store) Reference(st ownership.State) (ownership.OwnerRef, error) {
	if !ownerIDPattern.MatchString(st.OwnerID) {
		return nil, fmt.Errorf("owner %q: %w", st.OwnerID, ownership.ErrOwnerExited)
	}
	r := &ref{s: s, ownerID: st.OwnerID}
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.cli.Get(ctx, ownerIndex(s.prefix, st.OwnerID))
	if err != nil {
		return nil, s.unreachable(ctx, "reading owner "+st.OwnerID, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("owner %s (pid %d): %w", st.OwnerID, st.PID, ownership.ErrOwnerExited)
	}
	r.name = string(resp.Kvs[0].Value)
	return r, nil
}

type ref struct {
	s             *Store
	ownerID, name string
}

// running reports whether the owner may still run, at the revision read.
func (r *ref) running(ctx context.Context) (bool, int64, error) {
	idx := ownerIndex(r.s.prefix, r.ownerID)
	revoked := r.s.keys(r.name).revoked
	resp, err := r.s.cli.Txn(ctx).Then(clientv3.OpGet(idx), clientv3.OpGet(revoked)).Commit()
	if err != nil {
		return false, 0, r.s.unreachable(ctx, "reading owner "+r.ownerID, err)
	}
	if len(resp.Responses[0].GetResponseRange().Kvs) > 0 {
		return true, resp.Header.Revision, nil
	}
	for _, kv := range resp.Responses[1].GetResponseRange().Kvs {
		if h, err := lockAt(kv, false); err != nil || h.OwnerID == r.ownerID {
			return true, resp.Header.Revision, nil
		}
	}
	return false, resp.Header.Revision, nil
}

func (r *ref) Exited() (bool, error) {
	ctx, cancel := r.s.reqCtx()
	defer cancel()
	running, _, err := r.running(ctx)
	return !running && err == nil, err
}

// Wait returns once the owner is gone: woken by a watch on both keys from
// the revision read, so an end between the read and the watch is seen.
func (r *ref) Wait(ctx context.Context) error {
	for {
		running, rev, err := r.running(ctx)
		if err == nil && !running {
			return nil
		}
		wctx, cancel := context.WithCancel(ctx)
		var wch clientv3.WatchChan
		if err == nil {
			wch = r.s.cli.Watch(wctx, ownerIndex(r.s.prefix, r.ownerID), clientv3.WithRev(rev+1))
			rch := r.s.cli.Watch(wctx, r.s.keys(r.name).revoked, clientv3.WithRev(rev+1))
			select {
			case <-wch:
			case <-rch:
			case <-ctx.Done():
			}
		} else {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
		}
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (r *ref) Close() error { return nil }
