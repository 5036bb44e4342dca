package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// MinLeaseTTL is the shortest lease a fleet may run with: etcd grants
// whole seconds, and the margin below needs one of them.
const MinLeaseTTL = 2 * time.Second

// Margin is how long before the server may let a lease expire its holder
// gives it up: time to stop a transport (discordgo's close takes about a
// second) and to absorb the two clocks' drift over one TTL.
func Margin(ttl time.Duration) time.Duration { return max(time.Second, ttl*3/10) }

// lease is a lease this process keeps alive itself, so that it knows at
// every instant the earliest moment the server may let it expire. It is
// valid until TTL minus Margin after the last renewal the server answered,
// counted from when that renewal was sent: the server counts TTL from when
// it handled it, which is later. Past that moment lost closes, and it
// never reopens.
type lease struct {
	cli    *clientv3.Client
	id     clientv3.LeaseID
	ttl    time.Duration
	margin time.Duration

	mu    sync.Mutex
	until time.Time
	err   error // why it was lost

	lost     chan struct{}
	lostOnce sync.Once
	quitOnce sync.Once
	quit     chan struct{}
	done     chan struct{}
}

// grantLease grants a lease of ttl and keeps it alive until close or until
// it is lost.
func grantLease(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*lease, error) {
	sent := time.Now()
	resp, err := cli.Grant(ctx, int64(ttl/time.Second))
	if err != nil {
		return nil, fmt.Errorf("granting a lease: %w", err)
	}
	l := &lease{
		cli: cli, id: resp.ID, ttl: ttl, margin: Margin(ttl),
		lost: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{}),
	}
	l.until = sent.Add(time.Duration(resp.TTL)*time.Second - l.margin)
	go l.keepAlive()
	return l, nil
}

// valid reports whether the lease is still certainly alive on the server,
// and if not why.
func (l *lease) valid() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil && !time.Now().Before(l.until) {
		l.err = fmt.Errorf("lease %x not renewed within %s (its TTL %s less a margin of %s)", int64(l.id), l.ttl-l.margin, l.ttl, l.margin)
	}
	if l.err != nil {
		l.closeLost()
	}
	return l.err
}

func (l *lease) lose(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
	l.closeLost()
}

func (l *lease) closeLost() { l.lostOnce.Do(func() { close(l.lost) }) }

func (l *lease) deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// keepAlive renews three times per TTL. Each renewal may take until the
// lease's deadline, no longer, and one that the server answers moves the
// deadline; one that says the lease is gone loses it at once.
func (l *lease) keepAlive() {
	defer close(l.done)
	interval := max(l.ttl/3, 200*time.Millisecond)
	next := time.NewTimer(interval)
	defer next.Stop()
	for {
		// Sleeping past the deadline is the loss itself: wake for it.
		expire := time.NewTimer(time.Until(l.deadline()))
		select {
		case <-l.quit:
			expire.Stop()
			return
		case <-expire.C:
			_ = l.valid()
			return
		case <-next.C:
			expire.Stop()
		}
		sent := time.Now()
		ctx, cancel := context.WithDeadline(context.Background(), l.deadline())
		resp, err := l.cli.KeepAliveOnce(ctx, l.id)
		cancel()
		switch {
		case errors.Is(err, rpctypes.ErrLeaseNotFound):
			l.lose(fmt.Errorf("lease %x revoked or expired", int64(l.id)))
			return
		case err == nil && resp.TTL > 0:
			l.mu.Lock()
			if l.err == nil {
				l.until = sent.Add(time.Duration(resp.TTL)*time.Second - l.margin)
			}
			l.mu.Unlock()
			next.Reset(interval)
		default:
			// No answer (no leader for a moment, a member gone): try
			// again soon, not a whole interval later, while time is left.
			next.Reset(min(interval, 250*time.Millisecond))
		}
		if l.valid() != nil {
			return
		}
	}
}

// close stops renewing and revokes the lease, so what hangs on it goes at
// once rather than after its TTL.
func (l *lease) close(ctx context.Context) error {
	l.quitOnce.Do(func() { close(l.quit) })
	<-l.done
	l.lose(errors.New("lease closed"))
	if _, err := l.cli.Revoke(ctx, l.id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("revoking lease %x: %w", int64(l.id), err)
	}
	return nil
}

// LeaseTTL is every lease's TTL: a revoked owner's name stays held that
// long after its revocation (see Stop).
func (s *Store) LeaseTTL() time.Duration { return s.ttl }
