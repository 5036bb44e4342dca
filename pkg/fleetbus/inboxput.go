package fleetbus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/bus"
)

// putLanded puts every landing of this machine's daemon that waits in the
// ledger into the fleet's inbox, then records it put. Storing is
// create-if-absent, so a put repeated after a crash before its record
// stores nothing twice. An error means etcd did not answer: what is left
// waits for the next pass.
func (f *InboxFollower) putLanded(ctx context.Context, d bus.Dirs, dir string) error {
	l := ledgerOf(d)
	entries, err := l.landedEntries()
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := atomicfile.ReadCapped(l.path(landed, e), bus.MaxInboxFileSize)
		if err == nil {
			err = bus.CheckInboxEntry(e.session, e.file, data)
		}
		if err != nil {
			f.Log.Error(err, "a landing kept for the fleet cannot be put; it is left in the ledger", "path", l.path(landed, e))
			continue
		}
		if err := f.put(ctx, inboxKey(dir, e.session, e.file), data); err != nil {
			return err
		}
		if err := l.markPut(e, f.now()); err != nil {
			return err
		}
	}
	return nil
}

// put stores data at key on the inbox lease, unless key is there: the
// same bytes are the same landing; others are reported and kept.
func (f *InboxFollower) put(ctx context.Context, key string, data []byte) error {
	lease, err := f.inboxLease(ctx)
	if err != nil {
		return fmt.Errorf("a lease for the fleet's inbox: %w", err)
	}
	resp, err := f.Client.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, string(data), clientv3.WithLease(lease))).Else(clientv3.OpGet(key)).Commit()
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		f.mu.Lock()
		f.lease = 0
		f.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("putting %s: %w", key, err)
	}
	if !resp.Succeeded {
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 && !bytes.Equal(kvs[0].Value, data) {
			f.Log.Error(errors.New("already there with other content"), "a landing is not put in the fleet's inbox; the other machines keep what they have", "key", key)
		}
	}
	return nil
}

// inboxLease is the lease inbox entries are put on: a new one each hour,
// so every entry lives between InboxTTL less an hour and InboxTTL.
func (f *InboxFollower) inboxLease(ctx context.Context) (clientv3.LeaseID, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lease != 0 && f.now().Sub(f.leaseAt) < time.Hour {
		return f.lease, nil
	}
	resp, err := f.Client.Grant(ctx, int64(InboxTTL/time.Second))
	if err != nil {
		return 0, err
	}
	f.lease, f.leaseAt = resp.ID, f.now()
	return resp.ID, nil
}
