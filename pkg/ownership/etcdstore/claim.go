package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/platform"
)

// Acquire takes name for a daemon of this process: a lease of its own, and
// owner.lock on it, created only while no other owner holds the name and
// no revoked one may still run. The record is published in the same
// transaction, unhealthy until the first heartbeat.
func (s *Store) Acquire(name string, req ownership.AcquireRequest) (ownership.Claim, error) {
	c, err := s.AcquireClaim(name, req)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// AcquireClaim is Acquire returning the claim as its own type, which
// also writes the fleet's bus (fleetbus.Owner: Client, Dir, Guarded): a
// fleet daemon's wiring hands it to the relay's bus as such.
func (s *Store) AcquireClaim(name string, req ownership.AcquireRequest) (*Claim, error) {
	switch {
	case !ownership.KnownKind(req.Kind):
		return nil, fmt.Errorf("%w: kind %q", ownership.ErrInvalidRequest, req.Kind)
	case !ownerIDPattern.MatchString(req.OwnerID):
		return nil, fmt.Errorf("%w: owner id %q", ownership.ErrInvalidRequest, req.OwnerID)
	case req.Identity == "" || req.Generation < 0:
		return nil, fmt.Errorf("%w: identity %q, generation %d", ownership.ErrInvalidRequest, req.Identity, req.Generation)
	}
	pid := os.Getpid()
	inc, err := platform.Incarnation(pid)
	if err != nil || !incarnation.Valid(inc) {
		return nil, fmt.Errorf("%w: %v", ownership.ErrNoIncarnation, err)
	}
	k := s.keys(name)
	ctx, cancel := s.reqCtx()
	defer cancel()
	// The record as it is now: a malformed one is left exactly as it is.
	cur, err := s.cli.Get(ctx, k.state)
	if err != nil {
		return nil, s.unreachable(ctx, "reading "+name+"'s record", err)
	}
	stateRev := int64(0)
	if len(cur.Kvs) == 1 {
		if _, _, err := parseRecord(k.state, cur.Kvs[0].Value); err != nil {
			return nil, err
		}
		stateRev = cur.Kvs[0].ModRevision
	}
	l, err := grantLease(ctx, s.cli, s.ttl)
	if err != nil {
		return nil, s.unreachable(ctx, "acquiring "+name, err)
	}
	now := time.Now().UnixMilli()
	st := ownership.State{
		Version: ownership.RecordVersion, Kind: req.Kind, PID: pid, OwnerID: req.OwnerID,
		Identity: req.Identity, Incarnation: inc, StartedAt: now, HeartbeatAt: now,
		Generation: req.Generation.Opt(), Machine: s.machine,
	}
	h := holder{OwnerID: req.OwnerID, PID: pid, Incarnation: inc, Machine: s.machine, Lease: int64(l.id)}
	resp, err := s.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(k.owner), "=", 0),
		clientv3.Compare(clientv3.CreateRevision(k.revoked), "=", 0),
		clientv3.Compare(clientv3.ModRevision(k.state), "=", stateRev),
	).Then(
		clientv3.OpPut(k.owner, string(h.marshal()), clientv3.WithLease(l.id)),
		clientv3.OpPut(ownerIndex(s.prefix, req.OwnerID), name, clientv3.WithLease(l.id)),
		clientv3.OpPut(k.state, string(st.Marshal())),
	).Else(
		clientv3.OpGet(k.owner), clientv3.OpGet(k.revoked),
	).Commit()
	if err != nil || !resp.Succeeded {
		_ = l.close(ctx)
	}
	if err != nil {
		return nil, s.unreachable(ctx, "acquiring "+name, err)
	}
	if !resp.Succeeded {
		return nil, heldBy(resp)
	}
	c := &Claim{store: s, name: name, keys: k, lease: l, rev: resp.Header.Revision, state: st,
		lost: make(chan struct{}), control: make(chan struct{}, 1)}
	c.watchControl()
	go func() {
		select {
		case <-l.lost:
			c.lose(l.valid())
		case <-c.lost:
		}
	}()
	return c, nil
}

// heldBy says who holds the name, from a failed Acquire's Else reads: the
// live lock first, then a revoked one.
func heldBy(resp *clientv3.TxnResponse) error {
	if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
		h, err := lockAt(kvs[0], true)
		if err != nil {
			return err
		}
		return &ownership.HeldError{PID: h.PID, OwnerID: h.OwnerID, Incarnation: h.Incarnation, Source: ownership.LockFile}
	}
	if kvs := resp.Responses[1].GetResponseRange().Kvs; len(kvs) > 0 {
		h, err := lockAt(kvs[0], false)
		if err != nil {
			return err
		}
		return &ownership.HeldError{PID: h.PID, OwnerID: h.OwnerID, Incarnation: h.Incarnation, Source: ownership.LockFile + ".revoked", Unproven: true}
	}
	// Neither lock: the record changed between the read and the write.
	return &ownership.HeldError{Source: ownership.StateFile, Unproven: true}
}

// Claim is a daemon's hold on a name (an ownership.Claim). Every write it
// makes is a transaction that first compares owner.lock's create revision with rev,
// the one Acquire created: if anyone removed or replaced the lock since,
// nothing is written and the claim is lost.
type Claim struct {
	store *Store
	name  string
	keys  keys
	lease *lease
	rev   int64

	mu       sync.Mutex
	state    ownership.State
	released bool

	lost      chan struct{}
	lostOnce  sync.Once
	lostErr   error
	control   chan struct{} // poked when control.json changes
	stopWatch context.CancelFunc
}

// ControlChanged is poked when a control request may have arrived: read
// it then, not only on the next heartbeat.
func (c *Claim) ControlChanged() <-chan struct{} { return c.control }

func (c *Claim) Lost() <-chan struct{} { return c.lost }

func (c *Claim) State() ownership.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.Clone()
}

func (c *Claim) lose(err error) {
	c.lostOnce.Do(func() {
		c.mu.Lock()
		c.lostErr = &ownership.OwnershipLostError{What: ownership.LockFile, Err: err}
		c.mu.Unlock()
		close(c.lost)
	})
}

func (c *Claim) lostError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostErr
}

// guarded runs ops only while owner.lock is still the one this claim
// created and the lease is certainly alive, within the lease's remaining
// time: a request still in flight at the deadline proves nothing.
func (c *Claim) guarded(parent context.Context, op string, ops ...clientv3.Op) error {
	if err := c.lostError(); err != nil {
		return err
	}
	if err := c.lease.valid(); err != nil {
		c.lose(err)
		return c.lostError()
	}
	ctx, cancel := context.WithDeadline(parent, c.lease.deadline())
	defer cancel()
	stop := context.AfterFunc(c.store.ctx, cancel)
	defer stop()
	resp, err := c.store.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(c.keys.owner), "=", c.rev)).
		Then(ops...).Commit()
	if err != nil {
		if verr := c.lease.valid(); verr != nil {
			c.lose(verr)
			return c.lostError()
		}
		return c.store.unreachable(ctx, op, err)
	}
	if !resp.Succeeded {
		c.lose(errors.New("owner.lock was removed or replaced"))
		return c.lostError()
	}
	return nil
}

// Fence proves the claim still owns the name, by a round trip: a stop
// that revoked it is seen here before the next post, not a renewal later.
func (c *Claim) Fence() error { return c.guarded(c.store.ctx, "fencing "+c.name) }

func (c *Claim) Renew(hb ownership.Heartbeat) error {
	c.mu.Lock()
	if c.released {
		c.mu.Unlock()
		return errors.New("renew after release")
	}
	next := c.state.Clone()
	c.mu.Unlock()
	next.HeartbeatAt = time.Now().UnixMilli()
	next.TransportHealthy = hb.TransportHealthy
	next.TransportError, next.TransportReason = "", ""
	if !hb.TransportHealthy {
		next.TransportError = ownership.OneLine(hb.TransportError)
		if next.TransportError != "" && ownership.ValidReason(hb.TransportReason) {
			next.TransportReason = hb.TransportReason
		}
	}
	next.Relay = hb.Relay.Clone()
	next.Logins = nil
	if hb.Logins != nil && hb.Logins.Valid() {
		next.Logins = hb.Logins.Clone()
	}
	if err := c.guarded(c.store.ctx, "renewing "+c.name, clientv3.OpPut(c.keys.state, string(next.Marshal()))); err != nil {
		return err
	}
	c.mu.Lock()
	c.state = next
	c.mu.Unlock()
	return nil
}

// Release records the owner stopped. The lease stays until Close (the
// process's exit): a released owner still running is not yet gone.
func (c *Claim) Release(t *ownership.Terminated) error {
	c.mu.Lock()
	next := c.state.Clone()
	c.mu.Unlock()
	now := time.Now().UnixMilli()
	next.StoppedAt, next.TransportHealthy, next.TransportError, next.TransportReason = &now, false, "", ""
	if t != nil {
		next.Terminated = &ownership.Terminated{Reason: t.Reason, Message: ownership.OneLine(t.Message)}
	}
	if err := c.guarded(c.store.ctx, "releasing "+c.name, clientv3.OpPut(c.keys.state, string(next.Marshal()))); err != nil {
		return err
	}
	c.mu.Lock()
	c.state, c.released = next, true
	c.mu.Unlock()
	return nil
}

// Close ends the claim as the process's exit does: the lease is revoked,
// owner.lock goes with it, and a successor may start at once.
func (c *Claim) Close() error {
	c.stopWatch()
	ctx, cancel := context.WithTimeout(context.Background(), c.store.timeout)
	defer cancel()
	c.lose(errors.New("closed"))
	return c.lease.close(ctx)
}

// StopRequested reads control.json: a valid request to this very owner.
//
// The daemon reads it between renewals, so the read ends when the lease
// can no longer be proven, as every request of an owner does: one
// waiting out the store's timeout would hold the daemon past the moment
// it must have closed its transport.
func (c *Claim) StopRequested() (bool, error) {
	ctx, cancel := c.store.reqCtx()
	defer cancel()
	ctx, cancelLease := context.WithDeadline(ctx, c.lease.deadline())
	defer cancelLease()
	resp, err := c.store.cli.Get(ctx, c.keys.control)
	if err != nil {
		if verr := c.lease.valid(); verr != nil {
			c.lose(verr)
			return false, c.lostError()
		}
		return false, c.store.unreachable(ctx, "reading "+c.name+"'s control request", err)
	}
	if len(resp.Kvs) == 0 {
		return false, nil
	}
	if len(resp.Kvs[0].Value) > maxValue {
		return false, &ownership.MalformedError{Path: c.keys.control, Err: fmt.Errorf("over %d bytes", maxValue)}
	}
	req, err := ownership.ParseControl(resp.Kvs[0].Value)
	if err != nil {
		return false, err
	}
	return req.Addressed(c.State()), nil
}

// watchControl pokes control on every change of control.json, and once
// whenever the watch had to be made again (a change may have been missed).
func (c *Claim) watchControl() {
	ctx, cancel := context.WithCancel(c.store.ctx)
	c.stopWatch = cancel
	go func() {
		for ctx.Err() == nil {
			for range c.store.cli.Watch(clientv3.WithRequireLeader(ctx), c.keys.control) {
				poke(c.control)
			}
			poke(c.control)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Guarded commits ops only while the claim still owns the name: the
// fence of every write the relay makes in a fleet (fleetbus.Owner).
func (c *Claim) Guarded(ctx context.Context, what string, ops ...clientv3.Op) error {
	return c.guarded(ctx, what, ops...)
}

// Client is the etcd client the claim writes through.
func (c *Claim) Client() *clientv3.Client { return c.store.cli }

// Dir is the name's key prefix, "<prefix>/<name>/".
func (c *Claim) Dir() string { return c.keys.dir }
