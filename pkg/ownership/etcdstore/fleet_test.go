package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

var want = ownership.Desired{Kind: "discord", Identity: "7040273bec62d43f", Generation: 3}

func clientOf(t *testing.T, endpoint string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

type fleet struct {
	c        *etcdtest.Cluster
	prefix   string
	agentDir string
}

func newFleet(t *testing.T) *fleet {
	return &fleet{c: etcdtest.Start(t, etcdtest.Options{}), prefix: fmt.Sprintf("/f%d", worlds.Add(1)), agentDir: t.TempDir()}
}

func (f *fleet) store(t *testing.T, cli *clientv3.Client, machine string) *etcdstore.Store {
	t.Helper()
	return f.storeTTL(t, cli, machine, testTTL)
}

func (f *fleet) storeTTL(t *testing.T, cli *clientv3.Client, machine string, ttl time.Duration) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.New(etcdstore.Options{Client: cli, AgentDir: f.agentDir, Machine: machine, LeaseTTL: ttl,
		Prefix: f.prefix, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func acquire(t *testing.T, s *etcdstore.Store, name string) ownership.Claim {
	t.Helper()
	c, err := s.Acquire(name, ownership.AcquireRequest{Kind: want.Kind, OwnerID: fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()),
		Identity: want.Identity, Generation: want.Generation})
	if err != nil {
		t.Fatalf("Acquire(%s): %v", name, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
		t.Fatalf("first heartbeat: %v", err)
	}
	return c
}

// waitDelete returns when key is next deleted.
func waitDelete(t *testing.T, wch clientv3.WatchChan, key string) time.Time {
	t.Helper()
	deadline := time.After(10 * testTTL)
	for {
		select {
		case resp := <-wch:
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypeDelete && string(ev.Kv.Key) == key {
					return time.Now()
				}
			}
		case <-deadline:
			t.Fatalf("%s was not deleted within %s", key, 10*testTTL)
		}
	}
}

// waitRenewed returns once the lease of the lock at key has been renewed n
// times, as the server's remaining TTL shows.
func waitRenewed(t *testing.T, cli *clientv3.Client, key string, n int) {
	t.Helper()
	resp, err := cli.Get(context.Background(), key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("reading %s: %v", key, err)
	}
	id := clientv3.LeaseID(resp.Kvs[0].Lease)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * testTTL)
	last := int64(-1)
	for n > 0 {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("lease %x was not renewed %d more times within %s", id, n, 10*testTTL)
		}
		ttl, err := cli.TimeToLive(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if last >= 0 && ttl.TTL > last {
			n--
		}
		last = ttl.TTL
	}
}

// A daemon cut off from the cluster gives its name up before the server
// can let its lease expire, by at least most of the margin: so its
// transport is down before any successor can take the name, even though it
// never hears that it lost. The lease is 4 s here, so that the server's
// remaining TTL, in whole seconds, shows the renewals before the cut.
func TestClaimGivesUpBeforeTheServerCanExpireIt(t *testing.T) {
	const ttl = 4 * time.Second
	f := newFleet(t)
	p := f.c.NewProxy(t)
	claim := acquire(t, f.storeTTL(t, clientOf(t, p.Endpoint()), "m1", ttl), "bot")
	watcher := f.c.Client(t)
	lockKey := f.prefix + "/bot/" + ownership.LockFile
	wch := watcher.Watch(context.Background(), lockKey)
	// A daemon that has run a while: its deadline comes from a renewal,
	// not from the grant.
	waitRenewed(t, watcher, lockKey, 2)

	p.Cut()
	var lostAt time.Time
	select {
	case <-claim.Lost():
		lostAt = time.Now()
	case <-time.After(3 * ttl):
		t.Fatalf("a claim cut off from the cluster was not lost within %s", 3*ttl)
	}
	deletedAt := waitDelete(t, wch, lockKey)
	// The margin a 4 s lease is given (DESIGN 10: TTL minus a skew
	// margin), as a figure, not read back from the code under test.
	const margin = 1200 * time.Millisecond
	if got := etcdstore.Margin(ttl); got < margin {
		t.Errorf("Margin(%s) = %s, want at least %s", ttl, got, margin)
	}
	gap := deletedAt.Sub(lostAt)
	t.Logf("lost %s before the server expired the lock (margin %s)", gap, margin)
	if gap < margin*3/4 {
		t.Errorf("the claim was lost only %s before the server expired its lock; want at least %s of the %s margin", gap, margin*3/4, margin)
	}
	for what, err := range map[string]error{"Fence": claim.Fence(), "Renew": claim.Renew(ownership.Heartbeat{TransportHealthy: true})} {
		if !errors.Is(err, ownership.ErrOwnershipLost) {
			t.Errorf("%s of a lost claim = %v, want ErrOwnershipLost", what, err)
		}
	}
}

// A stop's SIGKILL fences the owner at once: its very next fence fails,
// before its lease renewal could tell it; and no successor may take the
// name until the revoked lock has stood one TTL past the revocation.
func TestRevocationFencesAtOnceAndHoldsTheNameOneTTL(t *testing.T) {
	f := newFleet(t)
	leader := f.store(t, f.c.Client(t), "m1")
	if err := leader.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	daemon := f.store(t, f.c.Client(t), "m1")
	claim := acquire(t, daemon, "bot")
	decided := leader.Observe("bot").Record.State
	if decided == nil {
		t.Fatal("no record to decide on")
	}
	var fenceAtKill, acquireAtKill error
	var killedAt time.Time
	how := ownership.StopOptions{Action: "stop", Graceful: 100 * time.Millisecond, Kill: 5 * testTTL, Escalate: true,
		Progress: func(step ownership.StopStep) {
			if step.Signal == "SIGKILL" {
				killedAt = time.Now()
				fenceAtKill = claim.Fence()
				_, acquireAtKill = daemon.Acquire("bot", ownership.AcquireRequest{Kind: want.Kind, OwnerID: "2-successor", Identity: want.Identity, Generation: want.Generation})
			}
		}}
	if err := leader.Stop(context.Background(), "bot", &want, *decided, how); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	held := time.Since(killedAt)
	if !errors.Is(fenceAtKill, ownership.ErrOwnershipLost) {
		t.Errorf("the owner's fence right after the revocation = %v, want ErrOwnershipLost", fenceAtKill)
	}
	var he *ownership.HeldError
	if !errors.As(acquireAtKill, &he) || !strings.HasSuffix(he.Source, ".revoked") {
		t.Errorf("a successor's Acquire right after the revocation = %v, want held by the revoked lock", acquireAtKill)
	}
	if held < testTTL {
		t.Errorf("Stop reported the revoked owner gone %s after the revocation, under its TTL %s", held, testTTL)
	}
	acquire(t, daemon, "bot") // free once Stop says so
}

// One owner per name: a second Acquire is refused while the first holds
// the name, released or not, and succeeds once its lease is gone.
func TestSecondAcquireIsRefusedWhileTheFirstHolds(t *testing.T) {
	f := newFleet(t)
	s := f.store(t, f.c.Client(t), "m1")
	first := acquire(t, s, "bot")
	second := func() error {
		_, err := s.Acquire("bot", ownership.AcquireRequest{Kind: want.Kind, OwnerID: "2-second", Identity: want.Identity, Generation: want.Generation})
		return err
	}
	var he *ownership.HeldError
	if err := second(); !errors.As(err, &he) || he.OwnerID != first.State().OwnerID {
		t.Fatalf("a second Acquire while the first holds = %v, want held by %s", err, first.State().OwnerID)
	}
	if err := first.Release(nil); err != nil {
		t.Fatal(err)
	}
	if err := second(); !errors.As(err, &he) {
		t.Fatalf("a second Acquire while the first released but runs = %v, want held", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := second(); err != nil {
		t.Fatalf("Acquire once the first closed: %v", err)
	}
}

// Only the machine that leads a name spawns or stops its daemon; when the
// leader goes, the next candidate leads.
func TestOnlyTheLeaderActs(t *testing.T) {
	f := newFleet(t)
	m1 := f.store(t, f.c.Client(t), "m1")
	m2 := f.store(t, f.c.Client(t), "m2")
	if err := m1.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	if err := m2.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	if err := m1.SpawnBlocked("bot"); err != nil {
		t.Fatalf("the leader's SpawnBlocked: %v", err)
	}
	err := m2.SpawnBlocked("bot")
	var le *ownership.LedElsewhereError
	if !errors.As(err, &le) || le.Leader != "m1" || ownership.Reason(err) != ownership.ReasonLedElsewhere {
		t.Fatalf("a follower's SpawnBlocked = %v, want led by m1", err)
	}
	claim := acquire(t, f.store(t, f.c.Client(t), "m1"), "bot")
	decided := m2.Observe("bot").Record.State
	sending := func() error {
		t.Error("a follower's stop ran Sending: the operator's hold would be written where the name is not led")
		return nil
	}
	err = m2.Stop(context.Background(), "bot", &want, *decided, ownership.StopOptions{Action: "stop", Graceful: time.Second, Kill: time.Second, Escalate: true, Sending: sending})
	if !errors.Is(err, ownership.ErrLedElsewhere) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("a follower's Stop = %v, want a refusal: led by m1, nothing sent", err)
	}
	if err := claim.Fence(); err != nil {
		t.Fatalf("the owner after a follower's refused stop: %v", err)
	}
	_ = m1.Close()
	if err := m2.SpawnBlocked("bot"); !errors.As(err, new(*ownership.HeldError)) {
		t.Fatalf("once m1 withdrew, m2 leads and sees the live owner: SpawnBlocked = %v, want held", err)
	}
}

// A store that cannot reach the cluster knows nothing, and does nothing:
// no verdict that frees the name, no spawn, no request written.
func TestUnreachableClusterTouchesNothing(t *testing.T) {
	f := newFleet(t)
	p := f.c.NewProxy(t)
	s := f.store(t, clientOf(t, p.Endpoint()), "m1")
	if err := s.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	claim := acquire(t, f.store(t, f.c.Client(t), "m1"), "bot")
	decided := s.Observe("bot").Record.State
	p.Cut()
	asked := time.Now()
	c := s.Observe("bot").Classify(want)
	if c.Class != ownership.ClassMalformed || c.Reason != ownership.ReasonStoreUnreachable || !c.AmbiguouslyLive {
		t.Errorf("Observe through a cut: %s/%s ambiguous %t (%s); want malformed, %s, ambiguously live", c.Class, c.Reason, c.AmbiguouslyLive, c.Message, ownership.ReasonStoreUnreachable)
	}
	// The message is true: etcd did not answer within the bound, at
	// these endpoints; no record was read, so none is "malformed".
	if took := time.Since(asked); took > 2*time.Second {
		t.Errorf("Observe through a cut took %s, over twice the 1s request timeout", took)
	}
	wantMsg := "reading bot: ownership store unreachable: etcd did not answer within 1s (endpoints " + p.Endpoint() + "); touching nothing"
	if c.Message != wantMsg {
		t.Errorf("Observe through a cut says %q, want %q", c.Message, wantMsg)
	}
	// Asked again at once, the store remembers the silence instead of
	// waiting it out again: a look at many names costs one bound.
	asked = time.Now()
	again := s.Observe("bot").Classify(want)
	if took := time.Since(asked); took > 500*time.Millisecond || again.Reason != ownership.ReasonStoreUnreachable || again.Message != wantMsg {
		t.Errorf("Observe again through the cut: %s after %s (%s); want %s at once, saying %q", again.Reason, took, again.Message, ownership.ReasonStoreUnreachable, wantMsg)
	}
	if _, err := s.Leader("bot"); err == nil || !errors.Is(err, ownership.ErrStoreUnreachable) || strings.Contains(err.Error(), "malformed") {
		t.Errorf("Leader through the cut = %v, want the store unreachable", err)
	}
	if err := s.SpawnBlocked("bot"); err == nil {
		t.Error("SpawnBlocked through a cut = nil: a second owner could start")
	}
	err := s.Stop(context.Background(), "bot", &want, *decided, ownership.StopOptions{Action: "stop", Graceful: time.Second, Kill: time.Second, Escalate: true})
	if err == nil || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("Stop through a cut = %v, want a refusal that sent nothing", err)
	}
	if req, err := claim.StopRequested(); req || err != nil {
		t.Errorf("the owner found a stop request (%t, %v) after a stop that could not reach the cluster", req, err)
	}
}

// Two stops of one owner at once: while the first waits for the owner to
// let go, the second revokes it. The first must not take the lock's
// disappearance for the owner's exit: the revoked owner may run until its
// revoked lock expires, one TTL later.
func TestAStopSeesAnotherStopsRevocation(t *testing.T) {
	f := newFleet(t)
	first := f.store(t, f.c.Client(t), "m1")
	second := f.store(t, f.c.Client(t), "m1")
	if err := first.Prepare("bot"); err != nil {
		t.Fatal(err)
	}
	claim := acquire(t, f.store(t, f.c.Client(t), "m1"), "bot") // never answers requests
	decided := first.Observe("bot").Record.State
	revoked := make(chan time.Time, 1)
	firstDone := make(chan error, 1)
	var firstAt time.Time
	firstAsked := make(chan struct{})
	go func() {
		err := first.Stop(context.Background(), "bot", &want, *decided, ownership.StopOptions{Action: "stop", Graceful: 10 * testTTL, Kill: 10 * testTTL,
			Progress: func(ownership.StopStep) { close(firstAsked) }})
		firstAt = time.Now()
		firstDone <- err
	}()
	<-firstAsked
	err := second.Stop(context.Background(), "bot", &want, *decided, ownership.StopOptions{Action: "stop", Graceful: 50 * time.Millisecond, Kill: 10 * testTTL, Escalate: true,
		Progress: func(step ownership.StopStep) {
			if step.Signal == "SIGKILL" {
				revoked <- time.Now()
			}
		}})
	if err != nil {
		t.Fatalf("the second, escalating stop: %v", err)
	}
	at := <-revoked
	if err := <-firstDone; err != nil {
		t.Fatalf("the first stop: %v", err)
	}
	if held := firstAt.Sub(at); held < testTTL {
		t.Errorf("the first stop reported the owner gone %s after another stop revoked it, under the TTL %s it may still run", held, testTTL)
	}
	if err := claim.Fence(); !errors.Is(err, ownership.ErrOwnershipLost) {
		t.Errorf("the revoked owner's fence = %v, want ErrOwnershipLost", err)
	}
}

// An owner's daemon asks its claim whether a stop was requested on every
// heartbeat, between renewals. Cut off from the cluster, that read must
// end when the lease can no longer be proven, not at the store's request
// timeout: a daemon waiting on it supervises nothing, and its transport
// would still be connected when the server lets the lease expire.
func TestAnOwnersReadsEndWithItsLease(t *testing.T) {
	const ttl = 4 * time.Second
	f := newFleet(t)
	p := f.c.NewProxy(t)
	// The default request timeout (5 s): longer than the lease's margin.
	s, err := etcdstore.New(etcdstore.Options{Client: clientOf(t, p.Endpoint()), AgentDir: f.agentDir, Machine: "m1",
		LeaseTTL: ttl, Prefix: f.prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	claim := acquire(t, s, "bot")
	watcher := f.c.Client(t)
	lockKey := f.prefix + "/bot/" + ownership.LockFile
	wch := watcher.Watch(context.Background(), lockKey)
	waitRenewed(t, watcher, lockKey, 2)

	p.Cut()
	returned := make(chan time.Time, 1)
	go func() {
		_, _ = claim.StopRequested()
		returned <- time.Now()
	}()
	deletedAt := waitDelete(t, wch, lockKey)
	var at time.Time
	select {
	case at = <-returned:
	case <-time.After(etcdstore.DefaultRequestTimeout):
		t.Fatalf("StopRequested through a cut had not returned %s after the server expired the lock", etcdstore.DefaultRequestTimeout)
	}
	// What is left of the margin is the daemon's time to close its
	// transport once it knows.
	left := deletedAt.Sub(at)
	t.Logf("StopRequested returned %s before the server expired the lock", left)
	if half := etcdstore.Margin(ttl) / 2; left < half {
		t.Errorf("StopRequested through a cut returned %s before the server expired the lock; want at least %s (half the margin)", left, half)
	}
}
