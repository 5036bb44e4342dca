package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
)

// Stop is the fleet's ladder against the owner decided on, wherever it
// runs. Its SIGTERM is a control request the daemon watches; its SIGKILL
// is the end of the daemon's ownership: owner.lock is replaced by
// owner.lock.revoked in one transaction, the daemon's lease is revoked,
// and the revoked lock stands, on a lease of its own renewed after the
// revocation, for one TTL more. The daemon cannot renew past the
// revocation, so by the time that lock expires it has stopped, reachable
// or not: only then is it reported gone. Only the machine that leads the
// name stops it.
func (s *Store) Stop(ctx context.Context, name string, want *ownership.Desired, decided ownership.State, how ownership.StopOptions) (err error) {
	refuse := func(err error) error {
		return fmt.Errorf("not stopping owner %s (pid %d on %s); %w: %w", decided.OwnerID, decided.PID, orUnknown(decided.Machine), ownership.ErrNothingSent, err)
	}
	if err := s.mustLead(name); err != nil {
		return refuse(err)
	}
	k := s.keys(name)
	rctx, cancel := s.reqCtx()
	l, err := s.look(rctx, name)
	cancel()
	if err != nil {
		return refuse(err)
	}
	holderKV, gone, err := s.decidedHolder(l, name, want, decided)
	switch {
	case err != nil:
		return refuse(err)
	case gone:
		return nil
	}
	if holderKV == nil {
		// Revoked already, by an earlier stop: wait out its lock.
		how.Report(ownership.StopStep{Signal: "SIGKILL", Sent: false, Wait: how.Kill})
		return s.waitRevokedOut(ctx, k, l.rev, how.Kill, decided)
	}
	h, _ := lockAt(holderKV, true) // decidedHolder parsed it
	if err := how.BeforeSending(); err != nil {
		return refuse(err)
	}

	req := ownership.NewControlRequest(how.Action, decided, s.Now())
	reqData := string(req.Marshal())
	rctx, cancel = s.reqCtx()
	resp, err := s.cli.Txn(rctx).
		If(clientv3.Compare(clientv3.CreateRevision(k.owner), "=", holderKV.CreateRevision)).
		Then(clientv3.OpPut(k.control, reqData)).Commit()
	cancel()
	switch {
	case err != nil:
		return refuse(s.unreachable(rctx, "writing the control request", err))
	case !resp.Succeeded:
		// The owner let go between the read and the write: judge again.
		return s.Stop(ctx, name, want, decided, how)
	}
	defer func() {
		// A request does not outlive the stop that wrote it; cleared only
		// if it is still this one.
		cctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		defer cancel()
		if _, cerr := s.cli.Txn(cctx).If(clientv3.Compare(clientv3.Value(k.control), "=", reqData)).
			Then(clientv3.OpDelete(k.control)).Commit(); cerr != nil {
			s.log.Error(cerr, "clearing control request", "name", name, "requestId", req.RequestID)
		}
	}()
	s.log.Info("stopping owner", "name", name, "ownerId", decided.OwnerID, "machine", h.Machine, "action", how.Action)
	how.Report(ownership.StopStep{Signal: "SIGTERM", Sent: true, Wait: how.Graceful})
	if s.waitUnlocked(ctx, k.owner, holderKV.CreateRevision, resp.Header.Revision, how.Graceful) {
		// Let go, or revoked by another stop meanwhile: then it may still
		// run until that stop's revoked lock expires.
		return s.waitRevokedOut(ctx, k, resp.Header.Revision, how.Kill, decided)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !how.Escalate {
		return fmt.Errorf("%w: owner %s (pid %d on %s) still holds %s after a control request (waited %v)",
			ownership.ErrDidNotExit, decided.OwnerID, decided.PID, h.Machine, name, how.Graceful)
	}
	rev, err := s.revoke(ctx, k, holderKV, h)
	if errors.Is(err, errLetGo) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: revoking owner %s's lease: %w", ownership.ErrNotProvenDead, decided.OwnerID, err)
	}
	how.Report(ownership.StopStep{Signal: "SIGKILL", Sent: true, Wait: how.Kill})
	return s.waitRevokedOut(ctx, k, rev, how.Kill, decided)
}

func orUnknown(machine string) string {
	if machine == "" {
		return "an unknown machine"
	}
	return machine
}

// decidedHolder checks, before anything is sent, that the record still
// names the owner decided on and that want may touch it, and finds its
// lock: owner.lock's key-value while it holds the name, nil while only its
// revoked lock stands. gone: the decided owner holds nothing (exited, or
// its record was copied from another name) and nothing is to be sent.
func (s *Store) decidedHolder(l look, name string, want *ownership.Desired, decided ownership.State) (kv *mvccpb.KeyValue, gone bool, err error) {
	k := s.keys(name)
	if l.state == nil {
		return nil, false, &ownership.OwnerChangedError{Field: "record", Want: decided.OwnerID, Got: "(none: the record vanished)"}
	}
	cur, _, err := parseRecord(k.state, l.state.Value)
	if err != nil {
		return nil, false, err
	}
	if err := ownership.MaySignal(decided, *cur, want, s.Boot()); err != nil {
		return nil, false, err
	}
	rctx, cancel := s.reqCtx()
	f, revoked := s.processFacts(rctx, name, l, cur)
	cancel()
	switch {
	case f.Equal:
		return l.owner, false, nil
	case f.Dead():
		if f.NotDaemon != nil {
			s.log.Info("not stopping: the record names another name's owner", "name", name, "why", f.NotDaemon.Error())
		}
		return nil, true, nil
	case revoked:
		return nil, false, nil
	}
	return nil, false, &ownership.NotSignalableError{PID: cur.PID, Code: ownership.ReasonOwnerUnverifiable, Detail: "its hold on the name cannot be proved", Err: f.Err}
}

// errLetGo: the owner gave the name up before it could be revoked.
var errLetGo = errors.New("owner let go")

// revoke replaces owner.lock by owner.lock.revoked and revokes the owner's
// lease; then renews the revoked lock's own lease, so that it stands one
// TTL beyond the revocation. It returns the revision of the replacement.
func (s *Store) revoke(ctx context.Context, k keys, kv *mvccpb.KeyValue, h holder) (int64, error) {
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	fence, err := s.cli.Grant(rctx, int64(s.ttl/time.Second))
	if err != nil {
		return 0, s.unreachable(rctx, "granting the revoked lock's lease", err)
	}
	resp, err := s.cli.Txn(rctx).
		If(clientv3.Compare(clientv3.CreateRevision(k.owner), "=", kv.CreateRevision)).
		Then(clientv3.OpPut(k.revoked, string(h.marshal()), clientv3.WithLease(fence.ID)),
			clientv3.OpDelete(k.owner), clientv3.OpDelete(ownerIndex(s.prefix, h.OwnerID))).
		Commit()
	if err != nil {
		return 0, s.unreachable(rctx, "revoking", err)
	}
	if !resp.Succeeded {
		_, _ = s.cli.Revoke(rctx, fence.ID)
		return 0, errLetGo
	}
	// From here the owner's writes fail: its lock is gone. Its lease may
	// still be renewed until revoked, so the revoked lock's TTL counts from
	// after that.
	if _, err := s.cli.Revoke(rctx, clientv3.LeaseID(h.Lease)); err != nil {
		s.log.Info("revoking the owner's lease failed; it ends on its own TTL", "ownerId", h.OwnerID, "err", err.Error())
	}
	if _, err := s.cli.KeepAliveOnce(rctx, fence.ID); err != nil {
		return 0, s.unreachable(rctx, "renewing the revoked lock", err)
	}
	return resp.Header.Revision, nil
}

// waitUnlocked waits up to d for owner.lock of createRev to go, watching
// from rev. It reports whether it went.
func (s *Store) waitUnlocked(ctx context.Context, key string, createRev, rev int64, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return s.waitDeleted(wctx, key, createRev, rev) == nil
}

// waitRevokedOut waits up to d for the revoked lock to expire: the owner
// has certainly stopped then.
func (s *Store) waitRevokedOut(ctx context.Context, k keys, rev int64, d time.Duration, decided ownership.State) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	rctx, rcancel := context.WithTimeout(wctx, s.timeout)
	resp, err := s.cli.Get(rctx, k.revoked)
	rcancel()
	if err == nil {
		if len(resp.Kvs) == 0 {
			return nil
		}
		if h, perr := lockAt(resp.Kvs[0], false); perr == nil && h.OwnerID != decided.OwnerID {
			return nil // another owner's revoked lock: not the one decided on
		}
		err = s.waitDeleted(wctx, k.revoked, resp.Kvs[0].CreateRevision, resp.Header.Revision)
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: owner %s (pid %d) was revoked, and its revoked lock still stood after %v: %v", ownership.ErrNotProvenDead, decided.OwnerID, decided.PID, d, err)
}

// waitDeleted returns nil once key, as created at createRev, is deleted
// after rev, or ctx's error.
func (s *Store) waitDeleted(ctx context.Context, key string, createRev, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range s.cli.Watch(clientv3.WithRequireLeader(wctx), key, clientv3.WithRev(rev+1), clientv3.WithPrevKV()) {
		if err := resp.Err(); err != nil {
			return s.unreachable(wctx, "watching "+key, err)
		}
		for _, ev := range resp.Events {
			if ev.Type == clientv3.EventTypeDelete || ev.Kv.CreateRevision != createRev {
				return nil
			}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &ownership.UnreachableError{Op: "watching " + key, Err: errors.New("the watch ended")}
}
