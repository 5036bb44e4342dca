package etcdstore

import (
	"context"
	"fmt"
	"time"
)

// A machine cut off from the cluster changes nothing there, so no watch
// fires: its watches break only when the connection's keepalive gives up,
// and its loop would look again only then, or at its resync. So while
// anything watches, the store asks the cluster a trivial question every
// third of a TTL, and pokes every watch when the answer stops or comes
// back. A cut is then reported within a third of a TTL plus the probe's
// bound (probeBound).

// probeBound is how long the probe waits for the cluster's answer: the
// request timeout, as every other request does. A cluster that answers
// within it is live, however short the lease TTL: a shorter bound would
// take a slow cluster for a silent one, and the silence it noted would
// fail every request made within silenceMemo after it.
func (s *Store) probeBound() time.Duration { return s.timeout }

// watched registers out to be poked by the probe, starting the probe with
// the first watch; the returned func unregisters it.
func (s *Store) watched(out chan struct{}) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers == nil {
		s.watchers = map[chan struct{}]bool{}
		go s.probe()
	}
	s.watchers[out] = true
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watchers, out)
	}
}

func (s *Store) probe() {
	period, bound := s.ttl/3, s.probeBound()
	t := time.NewTicker(period)
	defer t.Stop()
	wasSilent := false
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		isSilent := s.silentNow(bound)
		if isSilent == wasSilent {
			continue
		}
		wasSilent = isSilent
		s.mu.Lock()
		for ch := range s.watchers {
			poke(ch)
		}
		s.mu.Unlock()
	}
}

// silentNow reads one key within bound, through the cluster's leader:
// whether the cluster answers at all. A silence it finds is remembered
// (silence.go).
func (s *Store) silentNow(bound time.Duration) bool {
	ctx, cancel := context.WithTimeoutCause(s.ctx, bound,
		fmt.Errorf("etcd did not answer within %s (endpoints %s)", bound, s.endpoints()))
	defer cancel()
	_, err := s.cli.Get(ctx, s.prefix)
	if err != nil && silent(err) {
		_ = s.unreachable(ctx, "asking whether etcd answers", err)
		return true
	}
	return false
}
