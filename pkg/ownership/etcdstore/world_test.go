package etcdstore_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
	"gjc.dev/reconciler/pkg/ownership/ownershiptest"
)

// testTTL is the leases' TTL in these tests: short, so that a revoked
// owner's last moment comes soon.
const testTTL = 2 * time.Second

var worlds atomic.Int64

// world is one case's fleet: its own prefix on a shared cluster, one
// machine ("m1") whose stores all lead, and owners that are daemons in all
// but process: each holds its own client, lease and claim, as a daemon
// does, and answers stop requests and revocations as one.
type world struct {
	tt       *testing.T
	cluster  *etcdtest.Cluster
	cli      *clientv3.Client // the arranger's: a forger, an operator
	prefix   string
	agentDir string
}

func newWorld(c *etcdtest.Cluster) func(t *testing.T) ownershiptest.World {
	return func(t *testing.T) ownershiptest.World {
		return &world{tt: t, cluster: c, cli: c.Client(t), prefix: fmt.Sprintf("/w%d", worlds.Add(1)), agentDir: t.TempDir()}
	}
}

func (w *world) store(t *testing.T, cli *clientv3.Client, machine string) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.New(etcdstore.Options{Client: cli, AgentDir: w.agentDir, Machine: machine, LeaseTTL: testTTL, Prefix: w.prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func (w *world) Store() ownership.Store { return w.store(w.tt, w.cli, "m1") }

func (w *world) Acquirer(*testing.T) ownership.Acquirer { return w.store(w.tt, w.cli, "m1") }

func (w *world) RequestStop(t *testing.T, name string, s ownership.State) {
	req := ownership.NewControlRequest(ownership.ActionStop, s, time.Now())
	w.put(t, w.key(name, ownership.ControlFile), req.Marshal())
}

func (w *world) key(name, file string) string { return w.prefix + "/" + name + "/" + file }

func (w *world) put(t *testing.T, key string, val []byte) {
	t.Helper()
	if _, err := w.cli.Put(context.Background(), key, string(val)); err != nil {
		t.Fatal(err)
	}
}

func (w *world) WriteRecord(t *testing.T, name string, s ownership.State) {
	w.put(t, w.key(name, ownership.StateFile), s.Marshal())
}

func (w *world) CorruptRecord(t *testing.T, name string) {
	w.put(t, w.key(name, ownership.StateFile), []byte(`{"version":1,"kind":`))
}

func (w *world) CorruptLock(t *testing.T, name string) {
	w.put(t, w.key(name, ownership.LockFile), []byte("not a lock"))
}

func (w *world) RemoveRecord(t *testing.T, name string) {
	for _, f := range []string{ownership.StateFile, ownership.ControlFile} {
		if _, err := w.cli.Delete(context.Background(), w.key(name, f)); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *world) StartBystander(t *testing.T) ownershiptest.Bystander {
	t.Skip("etcd: an owner is proved by its lease, never by a PID, so no record can make a bystander process look like one; nothing here signals a process")
	return nil
}

func (w *world) HideLiveness(t *testing.T, p ownershiptest.Process) {
	t.Skip("etcd: a record and its owner's lock are read in one request from one cluster, so liveness is never unknown while the record is known; an unreachable cluster leaves the record itself unknown (TestUnreachableClusterTouchesNothing)")
}

// Fingerprint is every key kept about name, with its revisions and lease.
func (w *world) Fingerprint(t *testing.T, name string) string {
	resp, err := w.cli.Get(context.Background(), w.prefix+"/"+name+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range resp.Kvs {
		if strings.Contains(string(kv.Key), "/election/") {
			continue
		}
		out = append(out, fmt.Sprintf("%s@%d/%d lease %x = %q", kv.Key, kv.CreateRevision, kv.ModRevision, kv.Lease, kv.Value))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// owner is a daemon of the world, in a goroutine with its own client.
type owner struct {
	claim    ownership.Claim
	record   ownership.State
	stubborn bool
	cli      *clientv3.Client

	mu       sync.Mutex
	touched  []string
	released bool
	crashed  bool

	crash chan struct{}
	done  chan struct{}
}

func (w *world) StartOwner(t *testing.T, name string, want ownership.Desired, opts ownershiptest.OwnerOptions) ownershiptest.Owner {
	t.Helper()
	cli := w.cluster.Client(t)
	s := w.store(t, cli, "m1")
	c, err := s.Acquire(name, ownership.AcquireRequest{Kind: want.Kind, OwnerID: fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()),
		Identity: want.Identity, Generation: want.Generation})
	if err != nil {
		t.Fatalf("Acquire(%s): %v", name, err)
	}
	if err := c.Renew(ownership.Heartbeat{TransportHealthy: true}); err != nil {
		t.Fatalf("first heartbeat: %v", err)
	}
	o := &owner{claim: c, record: c.State(), stubborn: opts.Stubborn, cli: cli, crash: make(chan struct{}), done: make(chan struct{})}
	o.watchRequests(w.key(name, ownership.ControlFile))
	go o.run()
	t.Cleanup(func() { o.Crash(t) })
	return o
}

// watchRequests notes every request addressed to o, whatever o does with
// it: AssertUntouched sees even one cleared at once.
func (o *owner) watchRequests(key string) {
	ctx, cancel := context.WithCancel(context.Background())
	wch := o.cli.Watch(ctx, key, clientv3.WithCreatedNotify())
	<-wch // created
	go func() {
		<-o.done
		cancel()
	}()
	go func() {
		for resp := range wch {
			for _, ev := range resp.Events {
				if ev.Type != clientv3.EventTypePut {
					continue
				}
				req, err := ownership.ParseControl(ev.Kv.Value)
				if err == nil && req.OwnerID == o.record.OwnerID {
					o.note("control request " + req.Action)
				}
			}
		}
	}()
}

func (o *owner) note(what string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.touched = append(o.touched, what)
}

func (o *owner) run() {
	defer close(o.done)
	changed := o.claim.ControlChanged()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-o.crash:
			return
		case <-o.claim.Lost():
			o.note("ownership lost")
			return
		case <-tick.C:
			o.mu.Lock()
			released := o.released
			o.mu.Unlock()
			if !released {
				_ = o.claim.Renew(ownership.Heartbeat{TransportHealthy: true})
			}
		case <-changed:
		}
		if req, err := o.claim.StopRequested(); err == nil && req && !o.stubborn {
			o.mu.Lock()
			released := o.released
			o.mu.Unlock()
			if !released {
				_ = o.claim.Release(nil)
			}
			_ = o.claim.Close()
			return
		}
	}
}

func (o *owner) PID() int                { return o.record.PID }
func (o *owner) Incarnation() string     { return o.record.Incarnation }
func (o *owner) Record() ownership.State { return o.record.Clone() }

func (o *owner) Wait(ctx context.Context) error {
	select {
	case <-o.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (o *owner) AssertUntouched(t *testing.T) {
	t.Helper()
	select {
	case <-o.done:
		t.Errorf("owner %s has exited", o.record.OwnerID)
	default:
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.touched) > 0 {
		t.Errorf("owner %s was sent: %s", o.record.OwnerID, strings.Join(o.touched, ", "))
	}
}

func (o *owner) Release(t *testing.T) {
	t.Helper()
	if err := o.claim.Release(nil); err != nil {
		t.Fatalf("Release: %v", err)
	}
	o.mu.Lock()
	o.released = true
	o.mu.Unlock()
}

// Crash ends the owner without a release. Its lease is revoked, as its
// expiry a TTL later would: the record stays.
func (o *owner) Crash(t *testing.T) {
	o.mu.Lock()
	first := !o.crashed
	o.crashed = true
	o.mu.Unlock()
	if first {
		close(o.crash)
	}
	<-o.done
	_ = o.claim.Close()
}
