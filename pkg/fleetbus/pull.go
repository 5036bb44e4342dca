package fleetbus

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
)

// FleetOutbox is the directory, in a name's bus, where its owner keeps
// the entries it took from the fleet's outbox for its relay: apart from
// outbox/, which this machine's forwarder empties into etcd.
const FleetOutbox = "fleet-outbox"

// Dirs are the bus dirs of a daemon whose relay posts the fleet's outbox:
// d with FleetOutbox in place of outbox/.
func Dirs(d bus.Dirs) bus.Dirs {
	d.Outbox = filepath.Join(d.Dir, FleetOutbox)
	return d
}

// DoneTTL is how long a finished message's id is remembered in etcd, so
// that a machine still holding a copy of it does not forward it again.
const DoneTTL = 24 * time.Hour

// Puller gives the owner's relay the fleet's outbox: each entry becomes a
// file in the relay's outbox (Dirs), and is removed from etcd once the
// relay finished it (Finish).
type Puller struct {
	owner Owner
	dir   string
	bus   bus.Dirs
	log   logr.Logger

	mu        sync.Mutex
	doneLease clientv3.LeaseID
	leaseAt   time.Time
}

// NewPuller pulls the outbox of the name o owns into the relay's dirs d
// (Dirs of the name's bus).
func NewPuller(o Owner, d bus.Dirs, log logr.Logger) *Puller {
	return &Puller{owner: o, dir: o.Dir(), bus: d, log: log}
}

// Sync makes the relay's outbox what etcd's is: a file for each entry,
// and none for an id etcd no longer holds (finished by an earlier owner,
// here or on another machine). Call it before the relay starts, so it
// never sees a file a predecessor finished. It returns the revision to
// watch from.
func (p *Puller) Sync(ctx context.Context) (int64, error) {
	if err := bus.EnsureDirs(p.bus); err != nil {
		return 0, err
	}
	entries, rev, err := p.list(ctx)
	if err != nil {
		return 0, err
	}
	names, err := bus.ListOutbox(p.bus.Outbox)
	if err != nil {
		return 0, err
	}
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".json")
		if _, held := entries[id]; ok && held {
			continue
		}
		// Only this package writes here, and only entries it read from
		// etcd: one etcd no longer has was finished.
		if err := os.Remove(filepath.Join(p.bus.Outbox, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			p.log.Error(err, "removing a finished message from the fleet outbox", "file", name)
		}
	}
	for id, v := range entries {
		p.take(ctx, id, v)
	}
	return rev, nil
}

// list reads every entry of the fleet's outbox.
func (p *Puller) list(ctx context.Context) (map[string][]byte, int64, error) {
	prefix := outboxPrefix(p.dir)
	resp, err := p.owner.Client().Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, 0, fmt.Errorf("reading the fleet's outbox %s: %w", prefix, err)
	}
	entries := make(map[string][]byte, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		entries[strings.TrimPrefix(string(kv.Key), prefix)] = kv.Value
	}
	return entries, resp.Header.Revision, nil
}

// Resync is how often Run goes over every entry again, so an entry whose
// Finish failed is finished, and one a lost watch event hid is taken.
const Resync = 30 * time.Second

// Run takes each entry as it is stored, until ctx ends. Every Resync, and
// whenever the watch had to be made again, it goes over every entry.
func (p *Puller) Run(ctx context.Context, rev int64) {
	prefix := outboxPrefix(p.dir)
	tick := time.NewTicker(Resync)
	defer tick.Stop()
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(ctx)
		wch := p.owner.Client().Watch(clientv3.WithRequireLeader(wctx), prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
		p.follow(ctx, wch, tick.C, prefix)
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if r, err := p.pass(ctx); err == nil {
			rev = r
		}
	}
}

// follow takes what the watch reports, and every entry at each tick,
// until the watch ends.
func (p *Puller) follow(ctx context.Context, wch clientv3.WatchChan, tick <-chan time.Time, prefix string) {
	for {
		select {
		case resp, ok := <-wch:
			if !ok || resp.Err() != nil {
				return
			}
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypePut {
					p.take(ctx, strings.TrimPrefix(string(ev.Kv.Key), prefix), ev.Kv.Value)
				}
			}
		case <-tick:
			_, _ = p.pass(ctx)
		}
	}
}

// pass takes every entry the fleet's outbox holds now.
func (p *Puller) pass(ctx context.Context) (int64, error) {
	entries, rev, err := p.list(ctx)
	if err != nil {
		p.log.V(1).Info("the fleet's outbox cannot be read; trying again", "error", err.Error())
		return 0, err
	}
	for id, v := range entries {
		p.take(ctx, id, v)
	}
	return rev, nil
}

// take writes the entry id as a file of the relay's outbox. bus.Write
// never replaces a file, and answers for an id already posted (sent/);
// an entry that cannot be a message, or whose id is taken by another
// message here, is finished at once, with the reason logged: it can never
// be posted.
func (p *Puller) take(ctx context.Context, id string, value []byte) {
	m, err := bus.Decode(value)
	switch {
	case err != nil:
		p.log.Error(err, "an entry of the fleet's outbox is not a message; removed, not posted", "id", id)
		p.Finish(ctx, id)
		return
	case m.ID != id:
		p.log.Error(fmt.Errorf("its id %q differs from its key", m.ID), "an entry of the fleet's outbox is not a message; removed, not posted", "id", id)
		p.Finish(ctx, id)
		return
	}
	if _, err := os.Lstat(filepath.Join(p.bus.Failed, id+".json")); err == nil {
		p.Finish(ctx, id) // the relay failed it for good
		return
	}
	// The relay's dirs may have gone under it (an operator's rm -rf of
	// sdk/): made again, as Sync does. An entry that cannot be written for
	// want of them waits in etcd for the next pass; only one that can never
	// be a file here is finished.
	if err := bus.EnsureDirs(p.bus); err != nil {
		p.log.Error(err, "the relay's outbox cannot be made; the entry waits in etcd for the next pass", "id", id)
		return
	}
	if _, err := bus.Write(p.bus.Outbox, m); errors.Is(err, fs.ErrNotExist) {
		p.log.Error(err, "the relay's outbox went while an entry was written; it waits in etcd for the next pass", "id", id)
		return
	} else if err != nil {
		p.log.Error(err, "an entry of the fleet's outbox cannot be queued here; removed, not posted", "id", id)
		p.Finish(ctx, id)
		return
	}
	if _, err := os.Lstat(filepath.Join(p.bus.Outbox, id+".json")); errors.Is(err, os.ErrNotExist) {
		// Already in sent/ (bus.Write answered for it) or just finished
		// by the relay: either way, done.
		p.Finish(ctx, id)
	}
}

// Finish removes the entry id from the fleet's outbox and remembers its
// id as done for DoneTTL, in one fenced transaction: the relay calls it
// once the message left its outbox for good. An entry already gone is
// nothing to do; a failure is logged, and the next Sync or pass over the
// entries finishes it.
func (p *Puller) Finish(ctx context.Context, id string) {
	key := outboxKey(p.dir, id)
	resp, err := p.owner.Client().Get(ctx, key)
	if err != nil {
		p.log.V(1).Info("finishing a fleet message: etcd did not answer; left for the next pass", "id", id, "error", err.Error())
		return
	}
	if len(resp.Kvs) == 0 {
		return
	}
	sum := ""
	if m, err := bus.Decode(resp.Kvs[0].Value); err == nil {
		sum = bus.MessageSum(m)
	}
	lease, err := p.lease(ctx)
	if err != nil {
		p.log.V(1).Info("finishing a fleet message: no lease for its done id; left for the next pass", "id", id, "error", err.Error())
		return
	}
	err = p.owner.Guarded(ctx, "finishing fleet message "+id,
		clientv3.OpDelete(key), clientv3.OpPut(doneKey(p.dir, id), sum, clientv3.WithLease(lease)))
	if err != nil {
		p.log.V(1).Info("finishing a fleet message failed; left for the next pass", "id", id, "error", err.Error())
	}
}

// lease is the lease done ids are written on: a new one each hour, so
// every done id lives between DoneTTL less an hour and DoneTTL.
func (p *Puller) lease(ctx context.Context) (clientv3.LeaseID, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.doneLease != 0 && time.Since(p.leaseAt) < time.Hour {
		return p.doneLease, nil
	}
	resp, err := p.owner.Client().Grant(ctx, int64(DoneTTL/time.Second))
	if err != nil {
		return 0, err
	}
	p.doneLease, p.leaseAt = resp.ID, time.Now()
	return resp.ID, nil
}
