package etcdstore

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Watch pokes on every change under name: its record, its locks, its
// control request and its candidacies (a leader gone is a change to act
// on). The watch is in place when Watch returns; one that breaks (a
// partition, a compaction) pokes and is made again, so no change is lost
// unseen. It pokes too when the cluster stops or starts answering
// (probe.go): a cut changes nothing a watch could see.
func (s *Store) Watch(name string) (<-chan struct{}, func(), error) {
	ctx, cancel := context.WithCancel(s.ctx)
	out := make(chan struct{}, 1)
	wch, err := s.watchCreated(ctx, s.keys(name).dir)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	unwatch := s.watched(out)
	go func() {
		defer unwatch()
		for {
			if wch != nil {
				for range wch {
					poke(out)
				}
			}
			if ctx.Err() != nil {
				return
			}
			poke(out)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			// nil on failure: tried again after the next second.
			wch, _ = s.watchCreated(ctx, s.keys(name).dir)
		}
	}()
	return out, cancel, nil
}

// watchCreated watches prefix and returns once the server confirmed the
// watch, so nothing after the return goes unseen.
func (s *Store) watchCreated(ctx context.Context, prefix string) (clientv3.WatchChan, error) {
	wch := s.cli.Watch(clientv3.WithRequireLeader(ctx), prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	wait, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	select {
	case resp, ok := <-wch:
		if !ok || !resp.Created {
			err := fmt.Errorf("watch of %s not created", prefix)
			if ok && resp.Err() != nil {
				err = resp.Err()
			}
			return nil, s.unreachable(ctx, "watching "+prefix, err)
		}
		return wch, nil
	case <-wait.Done():
		return nil, s.unreachable(wait, "watching "+prefix, wait.Err())
	}
}
