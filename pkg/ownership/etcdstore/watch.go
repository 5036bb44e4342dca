package etcdstore

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
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
// watch, so nothing after the return goes unseen; or, within the request
// timeout, why not. The bound covers clientv3's Watch call itself: while
// its stream reconnects to a cluster that does not answer, the call
// blocks until its context ends, and a caller holding a lock meanwhile
// (the loop's follow) would freeze everything that waits for it. So the
// watch's context ends after the timeout, unless it was confirmed first.
func (s *Store) watchCreated(ctx context.Context, prefix string) (clientv3.WatchChan, error) {
	if err := s.quiet.recent(time.Now()); err != nil {
		// Within silenceMemo of a silence, as every request (reqCtx).
		return nil, &ownership.UnreachableError{Op: "watching " + prefix, Err: err}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	late := fmt.Errorf("etcd did not answer within %s (endpoints %s)", s.timeout, s.endpoints())
	timer := time.AfterFunc(s.timeout, func() { cancel(late) })
	wch := s.cli.Watch(clientv3.WithRequireLeader(wctx), prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	resp, ok := <-wch
	if timer.Stop() && ok && resp.Created {
		return wch, nil
	}
	cancel(late)
	err := fmt.Errorf("watch of %s not created", prefix)
	if ok && resp.Err() != nil {
		err = resp.Err()
	}
	if wctx.Err() != nil {
		err = wctx.Err()
	}
	return nil, s.unreachable(wctx, "watching "+prefix, err)
}
