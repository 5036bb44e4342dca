package etcdstore

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// ReleaseReaped ends the hold of a daemon this machine's reconciler
// spawned and reaped: its parent saw it exit, so nothing of it runs, and
// its lease and any revoked lock of it prove nothing more. Left alone,
// its lease would keep owner.lock for up to a TTL (a whole TTL after the
// cluster restarts, which renews every lease), a stop would ask and then
// revoke a process that is gone, and its revoked lock would stand one TTL
// more. Only a lock naming exactly that owner (its id and pid, on this
// machine) is touched: its lease is revoked, which takes its lock and its
// owner index with it, and a revoked lock of it is deleted. The record
// stays; its owner is then seen exited. Leading the name is not needed:
// this is no stop, the owner is gone.
func (s *Store) ReleaseReaped(name, ownerID string, pid int) error {
	ctx, cancel := s.reqCtx()
	defer cancel()
	l, err := s.look(ctx, name)
	if err != nil {
		return err
	}
	reaped := func(h holder) bool { return h.OwnerID == ownerID && h.PID == pid && h.Machine == s.machine }
	if l.owner != nil {
		if h, err := lockAt(l.owner, true); err == nil && reaped(h) {
			_, err := s.cli.Revoke(ctx, clientv3.LeaseID(h.Lease))
			if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
				return s.unreachable(ctx, fmt.Sprintf("revoking the lease of %s's reaped owner %s", name, ownerID), err)
			}
			s.log.Info("released a reaped owner's lock", "name", name, "ownerId", ownerID, "pid", pid)
		}
	}
	if l.revoked != nil {
		if h, err := lockAt(l.revoked, false); err == nil && reaped(h) {
			k := s.keys(name)
			_, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k.revoked), "=", l.revoked.CreateRevision)).
				Then(clientv3.OpDelete(k.revoked)).Commit()
			if err != nil {
				return s.unreachable(ctx, fmt.Sprintf("deleting %s's revoked lock of reaped owner %s", name, ownerID), err)
			}
			s.log.Info("released a reaped owner's revoked lock", "name", name, "ownerId", ownerID, "pid", pid)
		}
	}
	return nil
}
