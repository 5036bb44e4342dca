package fleetbus_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

// unansweredOnce is etcd's KV with one transaction that touches key left
// unanswered, as across a link that dropped it; every other request goes
// to the real server.
type unansweredOnce struct {
	clientv3.KV
	key string

	mu   sync.Mutex
	done bool
}

func (u *unansweredOnce) Txn(ctx context.Context) clientv3.Txn {
	return &unansweredTxn{Txn: u.KV.Txn(ctx), u: u}
}

type unansweredTxn struct {
	clientv3.Txn
	u    *unansweredOnce
	ops  []clientv3.Op
	cmps []clientv3.Cmp
}

func (t *unansweredTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.cmps = append(t.cmps, cs...)
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *unansweredTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.ops = append(t.ops, ops...)
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *unansweredTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Else(ops...)
	return t
}

func (t *unansweredTxn) Commit() (*clientv3.TxnResponse, error) {
	t.u.mu.Lock()
	hit := !t.u.done && len(t.ops) > 0 && string(t.ops[0].KeyBytes()) == t.u.key
	if hit {
		t.u.done = true
	}
	t.u.mu.Unlock()
	if hit {
		return nil, errors.New("etcd did not answer (the test's)")
	}
	return t.Txn.Commit()
}

// A session's messages reach etcd in the order they were written: when
// etcd does not take one, the files after it wait with it, so the owner's
// relay never opens a session with its second message (a root without
// its title) or posts a message ahead of the one written before it.
func TestForwardKeepsOrderPastAnUnansweredStore(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	// A client of the same server whose KV drops one store.
	cli, err := clientv3.New(clientv3.Config{Endpoints: r.cli.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	cli.KV = &unansweredOnce{KV: cli.KV, key: r.dir + "outbox/a1"}
	f := r.forwarder()
	f.Client = cli
	open := bus.Message{ID: "a1", Session: "s1", Event: bus.EventOpen, Title: "Fix the build", Text: "opened"}
	if _, err := bus.Write(r.dirs.Outbox, open); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.Write(r.dirs.Outbox, msg("a2", "the second")); err != nil {
		t.Fatal(err)
	}

	f.ForwardAll(ctx, r.dirs, "bot")
	if n := len(r.get(t, r.dir+"outbox/a2").Kvs); n != 0 {
		t.Fatal("a2 was stored while a1, written before it, was not")
	}
	if !exists(filepath.Join(r.dirs.Outbox, "a1.json")) || !exists(filepath.Join(r.dirs.Outbox, "a2.json")) {
		t.Fatal("a file left the outbox without being stored")
	}

	f.ForwardAll(ctx, r.dirs, "bot")
	a1, a2 := r.get(t, r.dir+"outbox/a1"), r.get(t, r.dir+"outbox/a2")
	if len(a1.Kvs) != 1 || len(a2.Kvs) != 1 {
		t.Fatalf("after the next try: a1 stored %v, a2 stored %v; want both", len(a1.Kvs) == 1, len(a2.Kvs) == 1)
	}
	if a1.Kvs[0].CreateRevision >= a2.Kvs[0].CreateRevision {
		t.Errorf("a1 stored at revision %d, a2 at %d: want a1 first", a1.Kvs[0].CreateRevision, a2.Kvs[0].CreateRevision)
	}
}

// A message etcd refuses for good (larger than its request limit) goes to
// failed/ with the reason, and does not hold back the files after it.
func TestForwardFailsAMessageTooLargeForEtcd(t *testing.T) {
	// An operator's cluster may take less than etcd's default 1.5 MiB.
	r := newRigWith(t, etcdtest.Options{MaxRequestBytes: 64 << 10})
	ctx := context.Background()
	f := r.forwarder()
	big := msg("b1", strings.Repeat("x", 100<<10))
	if _, err := bus.Write(r.dirs.Outbox, big); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.Write(r.dirs.Outbox, msg("b2", "after it")); err != nil {
		t.Fatal(err)
	}
	f.ForwardAll(ctx, r.dirs, "bot")
	failed, err := os.ReadFile(filepath.Join(r.dirs.Failed, "b1.json"))
	if err != nil || !strings.Contains(string(failed), "too large for the fleet's etcd") {
		t.Errorf("failed/b1.json: %v, want the reason (%.200s)", err, failed)
	}
	if len(r.get(t, r.dir+"outbox/b2").Kvs) != 1 {
		t.Error("b2 was held back by a message etcd refused for good")
	}
}
