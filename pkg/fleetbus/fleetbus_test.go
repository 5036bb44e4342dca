package fleetbus_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"

	"gjc.dev/reconciler/pkg/bus"
	"gjc.dev/reconciler/pkg/fleetbus"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/etcdstore"
	"gjc.dev/reconciler/pkg/ownership/etcdstore/etcdtest"
)

const prefix = "/fleet"

// rig is one embedded etcd, a machine's bus for "bot", and a store that
// can acquire "bot" as a daemon does.
type rig struct {
	cli   *clientv3.Client
	store *etcdstore.Store
	dirs  bus.Dirs
	dir   string
}

func newRig(t *testing.T) *rig { t.Helper(); return newRigWith(t, etcdtest.Options{}) }

func newRigWith(t *testing.T, o etcdtest.Options) *rig {
	t.Helper()
	c := etcdtest.Start(t, o)
	cli := c.Client(t)
	agentDir := t.TempDir()
	s, err := etcdstore.New(etcdstore.Options{Client: cli, AgentDir: agentDir, Machine: "m1", LeaseTTL: 2 * time.Second, Prefix: prefix, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	d, err := bus.Paths(agentDir, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.EnsureDirs(d); err != nil {
		t.Fatal(err)
	}
	return &rig{cli: cli, store: s, dirs: d, dir: fleetbus.Dir(prefix, "bot")}
}

// owner acquires "bot" as a daemon of this process does.
func (r *rig) owner(t *testing.T) *etcdstore.Claim {
	t.Helper()
	c, err := r.store.AcquireClaim("bot", ownership.AcquireRequest{Kind: "discord", OwnerID: fmt.Sprintf("%d-%s", os.Getpid(), uuid.NewString()), Identity: "7040273bec62d43f", Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func (r *rig) get(t *testing.T, key string) *clientv3.GetResponse {
	t.Helper()
	resp, err := r.cli.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (r *rig) forwarder() *fleetbus.Forwarder {
	return &fleetbus.Forwarder{Client: r.cli, Prefix: prefix, Log: logr.Discard()}
}

func msg(id, text string) bus.Message {
	return bus.Message{ID: id, Session: "s1", Text: text}
}

func exists(path string) bool { _, err := os.Lstat(path); return err == nil }

// A forwarded file is stored, then removed from disk; the same message
// again is the same message; the same id with other content is refused
// into failed/, and etcd keeps the first.
func TestForwardStoresOnceThenRemoves(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	f := r.forwarder()
	if _, err := bus.Write(r.dirs.Outbox, msg("a1", "hello")); err != nil {
		t.Fatal(err)
	}
	if err := f.Forward(ctx, r.dirs, "bot", "a1.json"); err != nil {
		t.Fatal(err)
	}
	stored := r.get(t, r.dir+"outbox/a1")
	if len(stored.Kvs) != 1 {
		t.Fatalf("outbox/a1 not stored")
	}
	if m, err := bus.Decode(stored.Kvs[0].Value); err != nil || !m.Equal(msg("a1", "hello").WithDefaults()) {
		t.Fatalf("stored %q (%v), want the message", stored.Kvs[0].Value, err)
	}
	if exists(filepath.Join(r.dirs.Outbox, "a1.json")) {
		t.Fatal("the outbox file is still there after it was stored")
	}

	// The same message again (a retry, or a copy on another machine).
	if _, err := bus.Write(r.dirs.Outbox, msg("a1", "hello")); err != nil {
		t.Fatal(err)
	}
	if err := f.Forward(ctx, r.dirs, "bot", "a1.json"); err != nil {
		t.Fatal(err)
	}
	if again := r.get(t, r.dir+"outbox/a1"); again.Kvs[0].ModRevision != stored.Kvs[0].ModRevision {
		t.Error("the same message stored again")
	}
	if exists(filepath.Join(r.dirs.Outbox, "a1.json")) || exists(filepath.Join(r.dirs.Failed, "a1.json")) {
		t.Error("the same message again was not simply removed")
	}

	// Other content under the id.
	if _, err := bus.Write(r.dirs.Outbox, msg("a1", "something else")); err != nil {
		t.Fatal(err)
	}
	if err := f.Forward(ctx, r.dirs, "bot", "a1.json"); err != nil {
		t.Fatal(err)
	}
	failed, err := os.ReadFile(filepath.Join(r.dirs.Failed, "a1.json"))
	if err != nil || !strings.Contains(string(failed), "already used in the fleet") {
		t.Errorf("failed/a1.json = %q (%v), want the reason", failed, err)
	}
	if again := r.get(t, r.dir+"outbox/a1"); again.Kvs[0].ModRevision != stored.Kvs[0].ModRevision {
		t.Error("etcd's entry was replaced by other content")
	}
}

// A message the owner finished within the day is not stored again: a
// machine that still holds a copy drops it; other content is refused.
func TestForwardDropsWhatIsDone(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	m := msg("d1", "done already")
	if _, err := r.cli.Put(ctx, r.dir+"done/d1", bus.MessageSum(m)); err != nil {
		t.Fatal(err)
	}
	f := r.forwarder()
	if _, err := bus.Write(r.dirs.Outbox, m); err != nil {
		t.Fatal(err)
	}
	if err := f.Forward(ctx, r.dirs, "bot", "d1.json"); err != nil {
		t.Fatal(err)
	}
	if len(r.get(t, r.dir+"outbox/d1").Kvs) != 0 {
		t.Error("a done message was stored again")
	}
	if exists(filepath.Join(r.dirs.Outbox, "d1.json")) || exists(filepath.Join(r.dirs.Failed, "d1.json")) {
		t.Error("a done message's copy was not simply removed")
	}
	if _, err := bus.Write(r.dirs.Outbox, msg("d1", "other")); err != nil {
		t.Fatal(err)
	}
	if err := f.Forward(ctx, r.dirs, "bot", "d1.json"); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(r.dirs.Failed, "d1.json")) || len(r.get(t, r.dir+"outbox/d1").Kvs) != 0 {
		t.Error("other content under a done id was not refused")
	}
}

// What is not a message never reaches etcd, and goes to failed/ with the
// reason; a FIFO is never opened.
func TestForwardRefusesWhatIsNotAMessage(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	f := r.forwarder()
	for name, data := range map[string]string{"junk.json": "{not json", "notes.txt": "hi", "other.json": `{"id":"x","session":"s","text":"t"}`} {
		writeOld(t, filepath.Join(r.dirs.Outbox, name), data)
	}
	if err := mkfifo(filepath.Join(r.dirs.Outbox, "pipe.json")); err != nil {
		t.Fatal(err)
	}
	f.ForwardAll(ctx, r.dirs, "bot")
	for _, name := range []string{"junk.json", "notes.txt", "other.json", "pipe.json"} {
		if !exists(filepath.Join(r.dirs.Failed, name)) {
			t.Errorf("%s: no failed/ record", name)
		}
	}
	resp, err := r.cli.Get(ctx, r.dir, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 0 {
		t.Errorf("etcd holds %d keys of bot (%v), want none", resp.Count, err)
	}
	if !exists(filepath.Join(r.dirs.Outbox, "pipe.json")) {
		t.Error("the FIFO was removed, want it left in place")
	}
}

// writeOld writes a file last modified a minute ago: past its grace, it
// is judged for what it holds (bus.Judge).
func writeOld(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// A file written in place (no temp name, no rename) is not judged while
// young: it is neither failed nor stored half written, and the files
// after it wait for it, so the order holds. Written whole, it is stored
// first; one that stays broken fails once its grace is over.
func TestForwardWaitsForAFileWrittenInPlace(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	f := r.forwarder()
	half := filepath.Join(r.dirs.Outbox, "a1.json")
	if err := os.WriteFile(half, []byte(`{"id":"a1","session":"s1",`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.Write(r.dirs.Outbox, msg("a2", "after it")); err != nil {
		t.Fatal(err)
	}
	f.ForwardAll(ctx, r.dirs, "bot")
	if exists(filepath.Join(r.dirs.Failed, "a1.json")) || !exists(half) {
		t.Fatal("the half-written file was failed")
	}
	if len(r.get(t, r.dir+"outbox/a2").Kvs) != 0 {
		t.Fatal("a2 was stored ahead of a1, still being written")
	}
	if err := os.WriteFile(half, []byte(`{"id":"a1","session":"s1","text":"whole"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f.ForwardAll(ctx, r.dirs, "bot")
	a1, a2 := r.get(t, r.dir+"outbox/a1"), r.get(t, r.dir+"outbox/a2")
	if len(a1.Kvs) != 1 || len(a2.Kvs) != 1 || a1.Kvs[0].CreateRevision >= a2.Kvs[0].CreateRevision {
		t.Fatalf("a1 stored %v, a2 stored %v; want both, a1 first", len(a1.Kvs) == 1, len(a2.Kvs) == 1)
	}
	writeOld(t, filepath.Join(r.dirs.Outbox, "a3.json"), `{"id":"a3",`)
	f.ForwardAll(ctx, r.dirs, "bot")
	if !exists(filepath.Join(r.dirs.Failed, "a3.json")) {
		t.Fatal("a broken file past its grace was not failed")
	}
}

func rec(op, id, part string) bus.Record {
	r := bus.Record{Op: op, ID: id, Part: part, Session: "s1", At: time.Now().UnixMilli()}
	if op == bus.OpDone {
		r.Remote = "100"
	} else {
		r.Text, r.Parts = "hi", 1
	}
	return r
}

// The journal replays in the order it was written, across owners; an
// owner whose claim was taken away writes nothing more.
func TestJournalIsFencedAndKeepsOrder(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	o1 := r.owner(t)
	j1 := fleetbus.NewJournal(o1)
	recs := []bus.Record{rec(bus.OpAttempt, "a", "0"), rec(bus.OpDone, "a", "0"), rec(bus.OpAttempt, "b", "0")}
	for _, x := range recs {
		if err := j1.Append(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	// Another machine's stop removed the lock: the name is not o1's.
	if _, err := r.cli.Delete(ctx, r.dir+ownership.LockFile); err != nil {
		t.Fatal(err)
	}
	err := j1.Append(ctx, rec(bus.OpDone, "b", "0"))
	if !errors.Is(err, ownership.ErrOwnershipLost) {
		t.Fatalf("append after the lock went: %v, want ErrOwnershipLost", err)
	}
	_ = o1.Close()

	o2 := r.owner(t)
	j2 := fleetbus.NewJournal(o2)
	var got []bus.Record
	if err := j2.Replay(ctx, func(x bus.Record) error { got = append(got, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("replayed %d records, want the %d written before the loss", len(got), len(recs))
	}
	for i := range recs {
		if got[i] != recs[i] {
			t.Errorf("record %d = %+v, want %+v", i, got[i], recs[i])
		}
	}
	more := rec(bus.OpDone, "b", "0")
	if err := j2.Append(ctx, more); err != nil {
		t.Fatal(err)
	}
	got = nil
	if err := fleetbus.NewJournal(o2).Replay(ctx, func(x bus.Record) error { got = append(got, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[3] != more {
		t.Errorf("after the new owner's append: %+v, want it last of 4", got)
	}
}

// A journal key or value the relay did not write stops the replay, named.
func TestJournalReplayRefusesWhatItCannotProve(t *testing.T) {
	for name, kv := range map[string][2]string{
		"bad value": {"journal/00000000000000000001", `{"op":"attempt"}`},
		"bad key":   {"journal/7", `{}`},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t)
			if _, err := r.cli.Put(context.Background(), r.dir+kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
			err := fleetbus.NewJournal(r.owner(t)).Replay(context.Background(), func(bus.Record) error { return nil })
			if err == nil || !strings.Contains(err.Error(), r.dir+kv[0]) {
				t.Errorf("replay = %v, want an error naming %s", err, kv[0])
			}
		})
	}
}

// Sync makes the relay's outbox etcd's: a file per entry, none for an id
// finished before; Finish removes the entry and remembers the id for a
// day, and only while the claim holds.
func TestPullerSyncsAndFinishes(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	o := r.owner(t)
	d := fleetbus.Dirs(r.dirs)
	m := msg("p1", "to post")
	data, _ := bus.Encode(m)
	if _, err := r.cli.Put(ctx, r.dir+"outbox/p1", string(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.cli.Put(ctx, r.dir+"outbox/p2", "garbage"); err != nil {
		t.Fatal(err)
	}
	p := fleetbus.NewPuller(o, d, logr.Discard())
	if err := os.MkdirAll(d.Outbox, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.Write(d.Outbox, msg("stale", "finished by a predecessor")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := bus.Read(filepath.Join(d.Outbox, "p1.json")); err != nil || !got.Equal(m.WithDefaults()) {
		t.Errorf("p1 in the relay's outbox: %+v, %v", got, err)
	}
	if exists(filepath.Join(d.Outbox, "stale.json")) {
		t.Error("a file etcd no longer holds is still queued")
	}
	if len(r.get(t, r.dir+"outbox/p2").Kvs) != 0 || exists(filepath.Join(d.Outbox, "p2.json")) {
		t.Error("an entry that is not a message was kept or queued")
	}

	if err := bus.MoveToSent(d, "p1.json"); err != nil {
		t.Fatal(err)
	}
	p.Finish(ctx, "p1")
	if len(r.get(t, r.dir+"outbox/p1").Kvs) != 0 {
		t.Fatal("a finished entry is still in etcd")
	}
	done := r.get(t, r.dir+"done/p1")
	if len(done.Kvs) != 1 || string(done.Kvs[0].Value) != bus.MessageSum(m) || done.Kvs[0].Lease == 0 {
		t.Fatalf("done/p1 = %+v, want the sum on a lease", done.Kvs)
	}
	ttl, err := r.cli.TimeToLive(ctx, clientv3.LeaseID(done.Kvs[0].Lease))
	if err != nil || time.Duration(ttl.TTL)*time.Second < fleetbus.DoneTTL-time.Hour {
		t.Errorf("done/p1's lease has %ds left (%v), want about a day", ttl.TTL, err)
	}

	// A claim taken away finishes nothing.
	if _, err := r.cli.Put(ctx, r.dir+"outbox/p3", string(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.cli.Delete(ctx, r.dir+ownership.LockFile); err != nil {
		t.Fatal(err)
	}
	p.Finish(ctx, "p3")
	if len(r.get(t, r.dir+"outbox/p3").Kvs) != 1 {
		t.Error("a lost claim removed an entry")
	}
}

// An owner whose bus was removed under it (an operator's rm -rf of sdk/)
// still posts what the fleet stores afterwards: the puller makes the
// relay's outbox again, and never finishes an entry it could not write
// for want of it (that would drop the message for good).
func TestPullerMakesTheRelaysOutboxAgain(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := r.owner(t)
	d := fleetbus.Dirs(r.dirs)
	p := fleetbus.NewPuller(o, d, logr.Discard())
	rev, err := p.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx, rev) }()
	defer func() { cancel(); <-done }()
	if err := os.RemoveAll(filepath.Dir(d.Dir)); err != nil {
		t.Fatal(err)
	}
	m := msg("r1", "after the rm -rf")
	data, _ := bus.Encode(m)
	if _, err := r.cli.Put(ctx, r.dir+"outbox/r1", string(data)); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	wch := r.cli.Watch(wctx, r.dir, clientv3.WithPrefix())
	for {
		if got, err := bus.Read(filepath.Join(d.Outbox, "r1.json")); err == nil && got.Equal(m.WithDefaults()) {
			break
		}
		if len(r.get(t, r.dir+"outbox/r1").Kvs) == 0 {
			t.Fatal("the entry was finished without reaching the relay's outbox: the message is lost")
		}
		select {
		case <-wch:
		case <-time.After(100 * time.Millisecond): // the file is not in etcd's watch: looked at again
		case <-wctx.Done():
			t.Fatal("r1 never reached the relay's outbox")
		}
	}
	if len(r.get(t, r.dir+"outbox/r1").Kvs) != 1 || len(r.get(t, r.dir+"done/r1").Kvs) != 0 {
		t.Error("r1 was finished before the relay posted it")
	}
}
